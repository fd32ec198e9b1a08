import { DataProtection } from '@app/data-protection';
import { Injectable, Logger, OnApplicationShutdown, OnModuleInit, Optional } from '@nestjs/common';
import { AsyncResource } from 'node:async_hooks';
import { createHash, randomUUID } from 'node:crypto';
import { ApiError, BackgroundCalls, Clock, isDatabaseDataError, MetricsService, SafeFetcher } from '@app/common';
import { AppConfig } from '@app/config';
import { BillingService } from '@app/billing';
import { ModelCatalogService } from '@app/providers';
import { EmbeddingsService } from '@app/embeddings';
import { DocumentParser, ExtractedDocument, ExtractionError } from './document-parser';
import { IngestJobEntity, KbDocumentEntity } from './entities/knowledge.entities';
import { FilesRepository } from './files.repository';
import { IngestionSignal } from './ingestion-signal';
import { decodeChunking } from './kb-rules';
import { KnowledgeRepository, NewChunk } from './knowledge.repository';
import { PdfOcr } from './parsers/pdf-ocr';
import { ChunkEmbedder } from './ingestion/chunk-embedder';
import { DocumentSource } from './ingestion/document-source';
import { ParseRun } from './ingestion/parse-run';
import { PermanentFailure } from './ingestion/permanent-failure';

const LEASE_MS = 60_000;
const MAX_ATTEMPTS = 5;

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

  /** the document's bytes (file or link) */
  private readonly source: DocumentSource;
  /** extraction and chunking, counted per run */
  private readonly parsing: ParseRun;
  /** vectors of the chunks, billed to the team */
  private readonly embedder: ChunkEmbedder;

  constructor(
    private readonly repo: KnowledgeRepository,
    files: FilesRepository,
    private readonly parser: DocumentParser,
    embeddings: EmbeddingsService,
    catalog: ModelCatalogService,
    billing: BillingService,
    fetcher: SafeFetcher,
    private readonly signal: IngestionSignal,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly metrics: MetricsService,
    ocr: PdfOcr,
    /** the request log's record of each embedding call */
    @Optional() calls?: BackgroundCalls,
    @Optional() protection: DataProtection = new DataProtection(),
  ) {
    this.source = new DocumentSource(files, fetcher, clock);
    this.parsing = new ParseRun(repo, parser, ocr);
    this.embedder = new ChunkEmbedder(repo, embeddings, catalog, billing, clock, protection, calls);
  }

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
    const { bytes, sha256: contentHash, filename, mime, finalUrl } = await this.source.load(doc);
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
    const parsed = await this.parsing.parse(job, bytes, { filename, mime }, decodeChunking(doc.chunking));
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
    const vectors = await this.embedder.embed(doc, store.embeddingModel, store.dimensions, chunks, chargeKey);
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
