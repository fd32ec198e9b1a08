import { Injectable, Logger, OnApplicationShutdown, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import { isDatabaseUnavailable, MetricsService } from '@app/common';
import { AppConfig } from '@app/config';
import { RequestLogEntity } from './entities/request-log.entity';
import { RequestLogRepository } from './request-log.repository';

/** at shutdown, queued records get this long to be written */
const SHUTDOWN_FLUSH_MS = 5_000;

/**
 * The request log's write path: records are queued in process and written in batches
 * (REQUEST_LOG_BATCH_SIZE rows, or whatever is queued after REQUEST_LOG_FLUSH_MS), one batch at a
 * time, off the requests' path. The queue is bounded by REQUEST_LOG_QUEUE_MAX records: from half full
 * on, a new record is kept without its bodies; at the bound, the new record is dropped — each drop
 * counted in `gateway_request_log_dropped_total`. A batch the database refuses because it is away
 * stays queued and is written when it returns (the outage fills the queue up to its bound); a batch
 * it rejects for any other reason is dropped and counted, so one bad row cannot stop the log.
 */
@Injectable()
export class RequestLogWriter implements OnModuleInit, OnModuleDestroy, OnApplicationShutdown {
  private readonly log = new Logger('RequestLog');
  private queue: RequestLogEntity[] = [];
  private timer?: NodeJS.Timeout;
  private writing: Promise<void> | null = null;
  private outage = false;

  constructor(
    private readonly repo: RequestLogRepository,
    private readonly config: AppConfig,
    private readonly metrics: MetricsService,
  ) {}

  onModuleInit(): void {
    this.metrics.observeRequestLogQueue(() => this.queue.length);
    this.timer = setInterval(() => void this.flush(), this.config.requestLog.flushMs);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** Writes what is queued (bounded wait) before the database closes. */
  async onApplicationShutdown(): Promise<void> {
    const deadline = performance.now() + SHUTDOWN_FLUSH_MS;
    while (this.queue.length > 0 && performance.now() < deadline && !this.outage) await this.flush();
  }

  get pending(): number {
    return this.queue.length;
  }

  /** Queues one record; never throws, never waits. */
  enqueue(record: RequestLogEntity): void {
    const { queueMax, batchSize } = this.config.requestLog;
    const n = this.queue.length;
    if (n >= queueMax) {
      this.metrics.requestLogDropped('record');
      return;
    }
    if (n >= queueMax / 2 && (record.requestBody !== null || record.responseBody !== null)) {
      record.requestBody = null;
      record.responseBody = null;
      record.bodiesExpireAt = null;
      this.metrics.requestLogDropped('body');
    }
    this.queue.push(record);
    if (this.queue.length >= batchSize && !this.writing && !this.outage) setImmediate(() => void this.flush());
  }

  /** Writes queued records, batch after batch, until the queue is empty or the database is away. */
  flush(): Promise<void> {
    this.writing ??= this.drain().finally(() => (this.writing = null));
    return this.writing;
  }

  private async drain(): Promise<void> {
    const { batchSize } = this.config.requestLog;
    while (this.queue.length > 0) {
      const batch = this.queue.slice(0, batchSize);
      try {
        await this.repo.insertMany(batch);
        if (this.outage) this.log.log(`database back: writing ${this.queue.length} queued request-log record(s)`);
        this.outage = false;
        this.metrics.requestLogWrote(batch.length);
      } catch (err) {
        if (isDatabaseUnavailable(err)) {
          if (!this.outage)
            this.log.warn(
              { cause: (err as Error).message, queued: this.queue.length },
              'database unavailable: request-log records stay queued',
            );
          this.outage = true;
          return;
        }
        this.log.error({ err, records: batch.length }, 'request-log batch refused by the database: dropped');
        this.metrics.requestLogDropped('record', batch.length);
      }
      this.queue.splice(0, batch.length);
    }
  }
}
