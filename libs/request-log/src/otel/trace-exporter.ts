import { Injectable, Logger, OnApplicationShutdown, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { MetricsService } from '@app/common';
import { AppConfig } from '@app/config';
import type { RequestLogEntity } from '../entities/request-log.entity';
import { OtlpSpan, parseTraceparent, spanOf, traceRequest } from './otlp-json';

/**
 * OpenTelemetry trace export: one span per recorded model call, sent over OTLP/HTTP (JSON encoding)
 * to `${OTEL_EXPORTER_OTLP_ENDPOINT}/v1/traces` in batches — a small batch span processor: spans are
 * queued (at most OTEL_BSP_MAX_QUEUE_SIZE; beyond, dropped and counted), sent every
 * OTEL_BSP_SCHEDULE_DELAY ms or when OTEL_BSP_MAX_EXPORT_BATCH_SIZE are waiting, one request at a
 * time; a batch the collector refuses or cannot take in OTEL_EXPORTER_OTLP_TIMEOUT is dropped and
 * counted. Unset endpoint: off — `export` returns at once and no timer runs.
 * (Why not the OpenTelemetry SDK: docs/decisions/otel-export-without-sdk.md.)
 */
@Injectable()
export class TraceExporter implements OnModuleInit, OnModuleDestroy, OnApplicationShutdown {
  private readonly log = new Logger('TraceExport');
  private queue: OtlpSpan[] = [];
  private timer?: NodeJS.Timeout;
  private sending: Promise<void> | null = null;
  private warned = false;

  constructor(
    private readonly config: AppConfig,
    private readonly metrics: MetricsService,
  ) {}

  get enabled(): boolean {
    return this.config.otel.endpoint !== undefined;
  }

  onModuleInit(): void {
    if (!this.enabled) return;
    this.timer = setInterval(() => void this.flush(), this.config.otel.scheduleDelayMs);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    if (this.timer) clearInterval(this.timer);
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.enabled) await this.flush();
  }

  /**
   * Queues the span of one recorded call; never throws, never waits. With the caller's W3C
   * `traceparent`, the span joins the caller's trace as a child of its span.
   */
  export(entry: RequestLogEntity, traceparent?: string): void {
    if (!this.enabled) return;
    const o = this.config.otel;
    if (this.queue.length >= o.maxQueueSize) {
      this.metrics.spans('dropped');
      return;
    }
    const parent = parseTraceparent(traceparent);
    const span = spanOf(entry, parent?.traceId ?? randomBytes(16).toString('hex'), randomBytes(8).toString('hex'));
    if (parent) span.parentSpanId = parent.spanId;
    this.queue.push(span);
    if (this.queue.length >= o.maxExportBatchSize && !this.sending) setImmediate(() => void this.flush());
  }

  /** Sends what is queued, batch after batch. */
  flush(): Promise<void> {
    this.sending ??= this.drain().finally(() => (this.sending = null));
    return this.sending;
  }

  private async drain(): Promise<void> {
    const o = this.config.otel;
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, o.maxExportBatchSize);
      try {
        const res = await fetch(`${o.endpoint}/v1/traces`, {
          method: 'POST',
          headers: { ...o.headers, 'content-type': 'application/json' },
          body: JSON.stringify(traceRequest(batch, o.serviceName)),
          signal: AbortSignal.timeout(o.exportTimeoutMs),
        });
        await res.arrayBuffer().catch(() => undefined);
        if (!res.ok) throw new Error(`collector answered ${res.status}`);
        this.metrics.spans('exported', batch.length);
        this.warned = false;
      } catch (err) {
        this.metrics.spans('failed', batch.length);
        if (!this.warned) this.log.warn({ cause: (err as Error).message }, 'trace export failed; spans dropped');
        this.warned = true;
      }
    }
  }
}
