import { Repository } from 'typeorm';
import { IngestJobEntity, JobStatus, KbDocumentEntity } from '../entities/knowledge.entities';
import { RepoContext, RepoPart } from './rows';

/** The ingestion queue: claiming jobs under a lease, parser runs, retries and failures. */
export class IngestJobs extends RepoPart {
  constructor(
    ctx: RepoContext,
    private readonly jobs: Repository<IngestJobEntity>,
  ) {
    super(ctx);
  }

  /**
   * Claims the oldest runnable job atomically: queued and due, or in progress under an expired
   * lease (its replica crashed). Postgres: `FOR UPDATE SKIP LOCKED`, so workers never wait on or
   * double-take a job; SQLite: the single writer makes the UPDATE … RETURNING atomic.
   */
  async claimJob(owner: string, now: number, leaseMs: number): Promise<IngestJobEntity | null> {
    const lock = this.sql.pg ? 'FOR UPDATE SKIP LOCKED' : '';
    const { rows } = await this.sql.exec(
      `UPDATE ${this.T.jobs} SET status = 'in_progress', lease_owner = $1, lease_until = $2, attempts = attempts + 1, updated_at = $3
       WHERE id = (SELECT id FROM ${this.T.jobs} WHERE (status = 'queued' AND run_after <= $3) OR (status = 'in_progress' AND lease_until < $3) ORDER BY id LIMIT 1 ${lock})
       RETURNING id, vector_store_id, document_id, team_id, attempts, parse_runs`,
      [owner, now + leaseMs, now],
    );
    const r = rows[0];
    if (!r) return null;
    return {
      id: Number(r.id),
      vectorStoreId: String(r.vector_store_id),
      documentId: String(r.document_id),
      teamId: String(r.team_id),
      attempts: Number(r.attempts),
      parseRuns: Number(r.parse_runs),
    } as IngestJobEntity;
  }

  /** Counts a parser run of the job's document before it starts (durable: a replica may die during it). */
  async startParseRun(jobId: number): Promise<void> {
    await this.jobs.increment({ id: jobId }, 'parseRuns', 1);
  }

  /** The parser run finished (with text or an ordinary parse error): no unfinished runs. */
  async endParseRun(jobId: number): Promise<void> {
    await this.jobs.update({ id: jobId }, { parseRuns: 0 });
  }

  async extendLease(jobId: number, owner: string, until: number): Promise<void> {
    await this.jobs.update({ id: jobId, leaseOwner: owner }, { leaseUntil: until });
  }

  async retryJob(jobId: number, runAfter: number, error: string, now: number): Promise<void> {
    await this.jobs.update(
      { id: jobId },
      { status: 'queued', runAfter, lastError: error, leaseOwner: null, leaseUntil: null, updatedAt: now },
    );
  }

  async failJob(
    jobId: number,
    vectorStoreId: string,
    documentId: string,
    code: string,
    message: string,
    now: number,
  ): Promise<void> {
    await this.tx.run(async (m) => {
      if (!(await this.lockStore(m, vectorStoreId))) return;
      await m.update(
        IngestJobEntity,
        { id: jobId },
        { status: 'failed', lastError: `${code}: ${message}`, leaseOwner: null, leaseUntil: null, updatedAt: now },
      );
      await m.update(
        KbDocumentEntity,
        { vectorStoreId, id: documentId },
        { status: 'failed', lastErrorCode: code, lastErrorMessage: message, updatedAt: now },
      );
    });
  }

  /** Ingestion jobs by state, every state present (zeros included): one GROUP BY on the status index. */
  async countJobsByState(): Promise<Record<JobStatus, number>> {
    const { rows } = await this.sql.exec(`SELECT status, COUNT(*) AS n FROM ${this.T.jobs} GROUP BY status`, []);
    const out: Record<JobStatus, number> = { queued: 0, in_progress: 0, completed: 0, failed: 0, cancelled: 0 };
    for (const r of rows) out[String(r.status) as JobStatus] = Number(r.n);
    return out;
  }

  async jobsFor(vectorStoreId: string, documentId: string): Promise<IngestJobEntity[]> {
    return this.jobs.findBy({ vectorStoreId, documentId });
  }
}
