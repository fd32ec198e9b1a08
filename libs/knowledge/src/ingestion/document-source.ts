import { createHash } from 'node:crypto';
import { Clock, SafeFetcher, SafeFetchError } from '@app/common';
import type { KbDocumentEntity } from '../entities/knowledge.entities';
import type { FilesRepository } from '../files.repository';
import { MAX_FILE_BYTES } from '../files.service';
import { PermanentFailure } from './permanent-failure';

const LINK_TIMEOUT_MS = 15_000;

/** The bytes a document is ingested from: its stored file, or its link fetched through the SSRF guard (and stored). */
export class DocumentSource {
  constructor(
    private readonly files: FilesRepository,
    private readonly fetcher: SafeFetcher,
    private readonly clock: Clock,
  ) {}

  async load(
    doc: KbDocumentEntity,
  ): Promise<{ bytes: Buffer; sha256: string; filename: string; mime: string; finalUrl: string | null }> {
    if (doc.kind !== 'link') {
      const bytes = await this.files.content(doc.teamId, doc.id);
      if (!bytes) throw new PermanentFailure('file_not_found', 'The file of this document was deleted.');
      const meta = await this.files.findOwned(doc.teamId, doc.id);
      return {
        bytes,
        // the digest stored with the file (of these bytes): hashing 10 MB again held the event loop
        sha256: meta?.sha256 ?? createHash('sha256').update(bytes).digest('hex'),
        filename: meta?.filename ?? doc.id,
        mime: meta?.mime ?? 'application/octet-stream',
        finalUrl: null,
      };
    }
    let res;
    try {
      res = await this.fetcher.fetch(doc.url!, { maxBytes: MAX_FILE_BYTES, timeoutMs: LINK_TIMEOUT_MS });
    } catch (err) {
      if (err instanceof SafeFetchError && err.code !== 'network' && err.code !== 'timeout')
        throw new PermanentFailure(`link_${err.code}`, `The link could not be fetched: ${err.message}`);
      throw err;
    }
    const name = new URL(res.finalUrl).pathname.split('/').pop() || 'index.html';
    const sha256 = createHash('sha256').update(res.bytes).digest('hex');
    // the fetched copy is stored under the document's file id, so the content endpoint shows what was indexed
    await this.files.replace({
      id: doc.id,
      teamId: doc.teamId,
      filename: name.slice(0, 255),
      purpose: 'user_data',
      mime: res.contentType.slice(0, 100),
      byteSize: res.bytes.length,
      sha256,
      bytes: res.bytes,
      createdAt: this.clock.now(),
    });
    return { bytes: res.bytes, sha256, filename: name, mime: res.contentType, finalUrl: res.finalUrl };
  }
}
