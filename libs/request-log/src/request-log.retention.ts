import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { Clock } from '@app/common';
import { AppConfig } from '@app/config';
import { RequestLogRepository } from './request-log.repository';

/** statements per run (each deletes at most REQUEST_LOG_DELETE_BATCH rows): a run stays short */
const MAX_BATCHES_PER_RUN = 100;

/**
 * Retention of the request log, on every replica every REQUEST_LOG_RETENTION_INTERVAL_MS: records past
 * their `expires_at` are deleted and bodies past their `bodies_expire_at` cleared, in bounded batches
 * (one short statement each, so writers are never held up). Replicas running it at once delete
 * disjoint or already-deleted rows: no coordination is needed (docs/decisions/request-log-retention-at-write.md).
 */
@Injectable()
export class RequestLogRetention implements OnModuleInit, OnModuleDestroy {
  private readonly log = new Logger('RequestLogRetention');
  private timer?: NodeJS.Timeout;
  private running: Promise<{ records: number; bodies: number }> | null = null;

  constructor(
    private readonly repo: RequestLogRepository,
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  onModuleInit(): void {
    this.timer = setInterval(() => void this.run().catch(() => undefined), this.config.requestLog.retentionIntervalMs);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** One pass; returns how many records were deleted and how many bodies cleared. */
  run(): Promise<{ records: number; bodies: number }> {
    this.running ??= this.pass()
      .catch((err: unknown) => {
        this.log.warn({ cause: (err as Error).message }, 'request-log retention pass failed; retried next time');
        return { records: 0, bodies: 0 };
      })
      .finally(() => (this.running = null));
    return this.running;
  }

  private async pass(): Promise<{ records: number; bodies: number }> {
    const batch = this.config.requestLog.deleteBatch;
    const now = this.clock.now();
    let records = 0;
    let bodies = 0;
    for (let i = 0; i < MAX_BATCHES_PER_RUN; i++) {
      const n = await this.repo.deleteExpired(now, batch);
      records += n;
      if (n < batch) break;
    }
    for (let i = 0; i < MAX_BATCHES_PER_RUN; i++) {
      const n = await this.repo.clearExpiredBodies(now, batch);
      bodies += n;
      if (n < batch) break;
    }
    if (records + bodies > 0) this.log.log(`request log: ${records} record(s) deleted, ${bodies} bodies cleared`);
    return { records, bodies };
  }
}
