import { DataProtection, type RequestProtection } from '@app/data-protection';
import { Injectable, Logger, OnApplicationShutdown, OnModuleInit, Optional } from '@nestjs/common';
import { AsyncResource } from 'node:async_hooks';
import { performance } from 'node:perf_hooks';
import { createHash, randomUUID } from 'node:crypto';
import { endianness } from 'node:os';
import {
  ApiError,
  BackgroundCalls,
  Clock,
  isDatabaseDataError,
  MetricsService,
  SafeFetcher,
  SafeFetchError,
} from '@app/common';
import { AppConfig } from '@app/config';
import { BillingService, embeddingsChargeMicro, embeddingsHoldMicro } from '@app/billing';
import { ModelCatalogService, ModelEntry } from '@app/providers';
import { EmbeddingsService } from '@app/embeddings';
import {
  DocumentChunk,
  DocumentParser,
  ExtractedDocument,
  ExtractionError,
  ParsedDocument,
  textChars,
} from './document-parser';
import { IngestJobEntity, KbDocumentEntity } from './entities/knowledge.entities';
import { FilesRepository } from './files.repository';
import { MAX_FILE_BYTES } from './files.service';
import { IngestionSignal } from './ingestion-signal';
import { Chunking, decodeChunking } from './kb-rules';
import { KnowledgeRepository, NewChunk } from './knowledge.repository';
import { encodeVector } from '@app/retrieval';
import { PdfOcr } from './parsers/pdf-ocr';

const LEASE_MS = 60_000;
const MAX_ATTEMPTS = 5;
const LINK_TIMEOUT_MS = 15_000;
/**
 * Parser runs of one document that may end unfinished (parser stopped for memory or time, or the
 * replica died meanwhile) before the document fails with parse_limit_exceeded: one retry.
 */
const MAX_PARSE_RUNS = 2;

const LITTLE_ENDIAN = endianness() === 'LE';

/**
 * The stored form of a vector: on little-endian machines the Float32Array's own bytes, shared
 * rather than copied (nothing writes to the vectors afterwards), so a document's vectors are not
 * held twice while they are written.
 */
const vectorBytes = (v: Float32Array): Buffer =>
  LITTLE_ENDIAN ? Buffer.from(v.buffer, v.byteOffset, v.byteLength) : encodeVector(v);

/** A failure that retrying cannot fix: the document fails with this code. */
class PermanentFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The ingestion worker of this replica. Jobs live in the database: every replica polls, claims one
 * atomically under a lease (renewed while it works), and a job whose replica died is claimed again
 * when its lease runs out. Steps: bytes (upload, or the link fetched through the SSRF guard) →
 * extract → chunk → embed the chunks whose text this knowledge base has not embedded yet (billed to
 * the team) → swap the document's chunks in one transaction. Failures that retrying cannot fix (the
 * document itself, or data the database refuses) fail the document at once with `last_error`;
 * others (network, a busy or restarting database) retry with exponential backoff, at most 5 attempts.
 */
@Injectable()
export class IngestionWorker implements OnModuleInit, OnApplicationShutdown {
  private readonly log = new Logger('Ingestion');
  private readonly owner = `w-${randomUUID().slice(0, 8)}`;
  private timer: NodeJS.Timeout | null = null;
  private running = 0;
  private stopped = false;
  private readonly active = new Set<Promise<void>>();

  constructor(
    private readonly repo: KnowledgeRepository,
    private readonly files: FilesRepository,
    private readonly parser: DocumentParser,
    private readonly embeddings: EmbeddingsService,
    private readonly catalog: ModelCatalogService,
    private readonly billing: BillingService,
    private readonly fetcher: SafeFetcher,
    private readonly signal: IngestionSignal,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly metrics: MetricsService,
    private readonly ocr: PdfOcr,
    /** the request log's record of each embedding call */
    @Optional() private readonly calls?: BackgroundCalls,
    @Optional() private readonly protection: DataProtection = new DataProtection(),
  ) {}

  onModuleInit(): void {
    // jobs of every replica, read from the database when /metrics is scraped (cached a few seconds)
    this.metrics.observeIngestionJobs(() => this.repo.countJobsByState());
    if (this.config.ingestConcurrency === 0) return;
    // bound here, so work started by a request's nudge does not run (and log) in that request's context
    this.signal.onNudge(AsyncResource.bind(() => this.tick()));
    this.timer = setInterval(() => this.tick(), this.config.ingestPollMs);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await Promise.allSettled([...this.active]);
  }

  /** Claim and run jobs until the concurrency is used or the queue is empty. */
  tick(): void {
    if (this.stopped) return;
    while (this.running < this.config.ingestConcurrency) {
      this.running++;
      const p = this.runOne()
        .then((worked) => {
          this.running--;
          if (worked) this.tick();
        })
        .catch((err: Error) => {
          this.running--;
          this.log.warn(`ingestion loop error: ${err.message}`);
        });
      this.active.add(p);
      void p.finally(() => this.active.delete(p));
      break;
    }
  }

  /** One job, if any is runnable. Exposed for tests that drive the queue step by step. */
  async runOne(): Promise<boolean> {
    const job = await this.repo.claimJob(this.owner, this.clock.now(), LEASE_MS);
    if (!job) return false;
    const renew = setInterval(
      () => void this.repo.extendLease(Number(job.id), this.owner, this.clock.now() + LEASE_MS).catch(() => undefined),
      LEASE_MS / 3,
    );
    renew.unref();
    try {
      await this.process(job);
    } catch (err) {
      await this.onFailure(job, err);
    } finally {
      clearInterval(renew);
    }
    return true;
  }

  private async onFailure(job: IngestJobEntity, err: unknown): Promise<void> {
    const now = this.clock.now();
    const id = Number(job.id);
    let code: string | null = null;
    let message = err instanceof Error ? err.message : String(err);
    if (err instanceof PermanentFailure || err instanceof ExtractionError) code = err.code;
    else if (err instanceof ApiError && err.status === 402) code = 'insufficient_quota';
    else if (err instanceof ApiError && err.status >= 400 && err.status < 500 && err.status !== 429)
      code = err.code ?? 'invalid_request';
    else if (isDatabaseDataError(err)) {
      // the database refuses this document's data: the same write would fail on every attempt
      code = 'invalid_data';
      message = `The database refused the document's data: ${message}`;
    } else if (job.attempts >= MAX_ATTEMPTS) {
      code = 'server_error';
      message = `Gave up after ${job.attempts} attempts: ${message}`;
    }
    if (code) {
      this.log.warn(`ingest ${job.vectorStoreId}/${job.documentId}: failed (${code}): ${message}`);
      await this.repo.failJob(id, job.vectorStoreId, job.documentId, code, message, now);
      return;
    }
    const delay = Math.min(60_000, 1000 * 2 ** (job.attempts - 1));
    this.log.warn(
      `ingest ${job.vectorStoreId}/${job.documentId}: attempt ${job.attempts} failed (${message}); retrying in ${delay} ms`,
    );
    await this.repo.retryJob(id, now + delay, message, now);
  }

  private async process(job: IngestJobEntity): Promise<void> {
    const store = await this.repo.findStore(job.teamId, job.vectorStoreId);
    const doc = store ? await this.repo.findDocument(job.teamId, job.vectorStoreId, job.documentId) : null;
    if (!store || !doc) {
      await this.repo.retryJob(Number(job.id), Number.MAX_SAFE_INTEGER, 'document deleted', this.clock.now());
      return;
    }
    const started = this.clock.now();
    await this.repo.updateDocument(doc.vectorStoreId, doc.id, { status: 'in_progress', updatedAt: started });
    const { bytes, sha256: contentHash, filename, mime, finalUrl } = await this.load(doc);
    if (doc.kind === 'link' && doc.contentHash === contentHash && doc.lastErrorCode === null && doc.chunkCount > 0) {
      // refresh of unchanged content: nothing to re-embed
      await this.repo.swapChunks(
        doc.vectorStoreId,
        doc.id,
        await this.keepChunks(doc),
        { status: 'completed', finalUrl, updatedAt: this.clock.now() },
        Number(job.id),
        (texts) => this.parser.indexTerms(texts),
      );
      this.log.log(`ingest ${doc.vectorStoreId}/${doc.id}: link unchanged, kept ${doc.chunkCount} chunks`);
      return;
    }
    const parsed = await this.parse(job, bytes, { filename, mime }, decodeChunking(doc.chunking));
    const { kind, pages, chunks } = parsed;
    const title = parsed.title ?? doc.title ?? filename;
    if (kind === 'image') {
      await this.repo.swapChunks(
        doc.vectorStoreId,
        doc.id,
        [],
        {
          status: 'completed',
          title,
          pages: 0,
          tokens: 0,
          chunkCount: 0,
          usageBytes: bytes.length,
          contentHash,
          finalUrl,
          updatedAt: this.clock.now(),
        },
        Number(job.id),
      );
      this.log.log(`ingest ${doc.vectorStoreId}/${doc.id}: image stored (not embedded)`);
      return;
    }
    if (chunks.length === 0) throw new ExtractionError('empty_document', 'The document holds no text to index.');
    this.log.log(`ingest ${doc.vectorStoreId}/${doc.id}: ${kind}, ${pages} page(s), ${chunks.length} chunk(s)`);

    const chargeKey = ingestionChargeKey(job, store.embeddingModel, contentHash);
    const vectors = await this.embed(doc, store.embeddingModel, store.dimensions, chunks, chargeKey);
    const rows: NewChunk[] = chunks.map((c) => ({ ...c, embedding: vectors.get(c.contentHash)! }));
    const tokens = chunks.reduce((s, c) => s + c.tokens, 0);
    const usageBytes = rows.reduce((s, r) => s + Buffer.byteLength(r.text) + r.embedding.length, 0);
    const ok = await this.repo.swapChunks(
      doc.vectorStoreId,
      doc.id,
      rows,
      {
        status: 'completed',
        title: title.slice(0, 512),
        pages,
        tokens,
        chunkCount: rows.length,
        usageBytes,
        contentHash,
        finalUrl,
        lastErrorCode: null,
        lastErrorMessage: null,
        updatedAt: this.clock.now(),
      },
      Number(job.id),
      // stemmed in a parser worker: on the event loop a large document's terms held it for seconds
      (texts) => this.parser.indexTerms(texts),
    );
    this.log.log(
      `ingest ${doc.vectorStoreId}/${doc.id}: ${ok ? 'completed' : 'dropped (document deleted meanwhile)'} in ${this.clock.now() - started} ms`,
    );
  }

  /**
   * The parser run (extraction, then chunking unless it is an image), counted durably before it
   * starts and cleared when it finishes, so a document that stops its parser (or kills its
   * replica) is parsed at most MAX_PARSE_RUNS times in all — also when the job is claimed again
   * after a restart or by another replica.
   */
  private async parse(
    job: IngestJobEntity,
    bytes: Buffer,
    hint: { filename: string; mime: string },
    chunking: Chunking,
  ): Promise<{ kind: ExtractedDocument['kind']; title?: string; pages: number; chunks: DocumentChunk[] }> {
    const id = Number(job.id);
    const unfinished = job.parseRuns ?? 0;
    if (unfinished >= MAX_PARSE_RUNS)
      throw new PermanentFailure(
        'parse_limit_exceeded',
        `The document's parser did not finish in ${unfinished} runs (stopped for memory or time, or its replica stopped); it is not parsed again.`,
      );
    await this.repo.startParseRun(id);
    try {
      let parsed: ParsedDocument | null = null;
      try {
        parsed = await this.parser.extractChunks(bytes, hint, chunking);
      } catch (err) {
        if (!(err instanceof ExtractionError && err.code === 'no_text_layer')) throw err;
      }
      if (parsed && 'chunks' in parsed) {
        await this.repo.endParseRun(id);
        return { kind: parsed.kind, title: parsed.title, pages: parsed.pageCount, chunks: parsed.chunks };
      }
      // a scan: OCR's text where this replica can read it
      const extracted = await this.scanText(bytes, parsed?.scan ?? null);
      const chunks = await this.parser.chunk(extracted, chunking);
      await this.repo.endParseRun(id);
      // the page texts end here (their chunks carry the text), so they are not held while embedding
      return { kind: extracted.kind, title: extracted.title, pages: extracted.pages.length, chunks };
    } catch (err) {
      if (err instanceof ExtractionError && err.retryable) {
        // stopped for memory or time: once more (the limit may have been hit under load), then for good
        if (unfinished + 1 >= MAX_PARSE_RUNS) throw new PermanentFailure(err.code, err.message);
        throw new Error(err.message);
      }
      // the parser finished (an ordinary parse error) or never ran (shutdown): the run does not count
      if (!(err instanceof ExtractionError)) await this.repo.endParseRun(id).catch(() => undefined);
      throw err;
    }
  }

  /**
   * The text of a PDF whose text layer is empty or near empty (`layer`; null when it has none): OCR's
   * when this replica can OCR (child processes, within OCR_MAX_PAGES and OCR_TIMEOUT_MS). A scan that
   * cannot be read here fails with no_text_layer, the message saying how to enable OCR; a near-empty
   * text layer without OCR is indexed as it is.
   */
  private async scanText(bytes: Buffer, layer: ExtractedDocument | null): Promise<ExtractedDocument> {
    const tools = await this.ocr.available();
    if (!tools.available) {
      if (layer) return layer;
      throw new ExtractionError(
        'no_text_layer',
        `The PDF has no text layer (a scan or images only) and OCR is not available: ${tools.reason}.`,
      );
    }
    const started = performance.now();
    const pages = await this.ocr.recognize(bytes);
    const chars = textChars(pages);
    this.log.log(
      `OCR read ${pages.length} page(s), ${chars} characters, in ${Math.round(performance.now() - started)} ms`,
    );
    if (layer && textChars(layer.pages) >= chars) return layer;
    if (chars === 0)
      throw new ExtractionError(
        'no_text_layer',
        `The PDF has no text layer (a scan or images only) and OCR found no text on its ${pages.length} page(s).`,
      );
    return { kind: 'pdf', mime: 'application/pdf', ...(layer?.title ? { title: layer.title } : {}), pages };
  }

  /** Chunks of an unchanged document, re-inserted as they are (the swap is the one place that writes chunks). */
  private async keepChunks(doc: KbDocumentEntity): Promise<NewChunk[]> {
    const rows = await this.repo.loadVectors(doc.vectorStoreId);
    const mine = rows.filter((r) => r.documentId === doc.id);
    const full = await this.repo.chunksByIds(mine.map((r) => r.id));
    const byId = new Map(full.map((c) => [Number(c.id), c]));
    return mine.map((r) => {
      const c = byId.get(r.id)!;
      return {
        ordinal: c.ordinal,
        page: c.page,
        text: c.text,
        tokens: c.tokens,
        contentHash: c.contentHash,
        embedding: r.embedding,
      };
    });
  }

  private async load(
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

  /**
   * Vectors by content hash: reused from this knowledge base when the same text was embedded before,
   * else embedded now, the tokens billed to the team (reserve → embed → settle; release on failure).
   */
  private async embed(
    doc: KbDocumentEntity,
    modelKey: string,
    dimensions: number,
    chunks: { contentHash: string; text: string; tokens: number }[],
    chargeKey: string,
  ): Promise<Map<string, Buffer>> {
    const vectors = await this.repo.embeddingsByHash(doc.vectorStoreId, [...new Set(chunks.map((c) => c.contentHash))]);
    const todo = new Map<string, { text: string; tokens: number }>();
    for (const c of chunks) if (!vectors.has(c.contentHash) && !todo.has(c.contentHash)) todo.set(c.contentHash, c);
    if (todo.size === 0) return vectors;
    const model = this.catalog.require(modelKey, 'embedding', doc.teamId);
    const items = [...todo.entries()];
    const texts = items.map(([, c]) => c.text);
    // counted by the chunker with the same encoding (in its worker): for batching and the hold only
    const counts = items.map(([, c]) => c.tokens);
    const requestId = `ingest-${doc.id}-${this.clock.now()}`;
    const started = performance.now();
    const report = (status: number, errorCode: string | null, tokens: number, costMicro: number): void =>
      this.calls?.report({
        requestId,
        teamId: doc.teamId,
        endpoint: 'knowledge-base ingestion',
        model: model.key,
        status,
        errorCode,
        inputTokens: tokens,
        costMicro,
        latencyMs: performance.now() - started,
        knowledgeBaseId: doc.vectorStoreId,
        fx: model.fx ?? null,
      });
    let metered;
    try {
      // the team's data policy: residency of the store's embedder, personal data in the chunks blocked or masked
      const protection = await this.protection.forTeam(doc.teamId);
      metered = await this.meterEmbedding(
        doc,
        model,
        texts,
        counts,
        chunks.length,
        dimensions,
        requestId,
        chargeKey,
        protection,
      );
    } catch (err) {
      report(
        err instanceof ApiError ? err.status : 500,
        err instanceof ApiError ? (err.code ?? null) : 'internal_error',
        0,
        0,
      );
      throw err;
    }
    report(200, null, metered.result.tokens, metered.charged?.chargedMicro ?? 0);
    const { result } = metered;
    items.forEach(([hash], i) => vectors.set(hash, vectorBytes(result.vectors[i])));
    this.log.log(
      `ingest ${doc.vectorStoreId}/${doc.id}: embedded ${texts.length} chunk(s), ${result.tokens} tokens (${model.key})` +
        (metered.charged?.alreadyCharged ? ', charged before by an earlier run of this job: not charged again' : ''),
    );
    return vectors;
  }

  private meterEmbedding(
    doc: KbDocumentEntity,
    model: ModelEntry,
    texts: string[],
    counts: number[],
    chunkCount: number,
    dimensions: number,
    requestId: string,
    chargeKey: string,
    protection: RequestProtection,
  ) {
    return this.billing.meter({
      teamId: doc.teamId,
      requestId,
      chargeKey,
      holdMicro: embeddingsHoldMicro(
        model.pricing,
        counts.reduce((a, b) => a + b, 0),
      ),
      run: () =>
        this.embeddings.embed(
          model,
          texts,
          model.dimensions === dimensions ? undefined : dimensions,
          undefined,
          counts,
          'document',
          protection,
        ),
      charge: (r) => ({
        costMicro: embeddingsChargeMicro(model.pricing, r.tokens),
        details: {
          endpoint: 'knowledge-base ingestion',
          model: model.key,
          apiKeyId: null,
          promptTokens: r.tokens,
          completionTokens: 0,
          fx: model.fx ?? null,
          breakdown: {
            vector_store_id: doc.vectorStoreId,
            document_id: doc.id,
            chunks_embedded: texts.length,
            chunks_reused: chunkCount - texts.length,
          },
        },
      }),
    });
  }
}

/**
 * The key an ingestion's embedding charge is applied under (the ledger's reference, unique per
 * team): the job (a retry or refresh is a new job), the document's content and the embedding model.
 * A run of the same job again — its replica died or it failed after the charge committed — finds it
 * charged and is not charged again.
 */
export function ingestionChargeKey(job: IngestJobEntity, model: string, contentHash: string): string {
  const id = [job.vectorStoreId, job.documentId, String(job.id), contentHash, model].join('\n');
  return `ingest:${createHash('sha256').update(id).digest('hex')}`;
}

export type { ExtractedDocument };
