import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  defaultTextMapGetter,
  type Context,
  type Tracer,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import { AlwaysOnSampler, BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { MetricsService } from '@app/common';
import { AppConfig } from '@app/config';
import type { RequestLogEntity } from '../entities/request-log.entity';
import { BoundedSpanProcessor, CountingExporter, type SpanOutcome } from './counted-processor';
import { createOtlpExporter } from './otlp-exporters';
import { isError, spanAttributes, spanName } from './span-attributes';

/**
 * OpenTelemetry trace export on the SDK: one SERVER span per recorded model call, built from the
 * request-log record and handed to a `BatchSpanProcessor` with the OTLP exporter of
 * OTEL_EXPORTER_OTLP_PROTOCOL (http/protobuf, http/json or grpc). The tracer provider is the
 * gateway's own (not registered globally) and no instrumentation is loaded, so the request path
 * gains nothing but the span's construction. No endpoint: off — `export` returns at once.
 */
@Injectable()
export class TraceExporter implements OnApplicationShutdown {
  private readonly log = new Logger('TraceExport');
  private readonly provider?: BasicTracerProvider;
  private readonly tracer?: Tracer;
  private readonly propagator = new W3CTraceContextPropagator();
  private warned = false;
  private readonly shutdownTimeoutMs: number;

  constructor(
    config: AppConfig,
    private readonly metrics: MetricsService,
  ) {
    const o = config.otel;
    this.shutdownTimeoutMs = o.exportTimeoutMs;
    if (o.endpoint === undefined) return;
    const count = (outcome: SpanOutcome, n: number) => this.counted(outcome, n);
    const exporter = new CountingExporter(createOtlpExporter({ ...o, endpoint: o.endpoint }), count);
    const batches = new BatchSpanProcessor(exporter, {
      scheduledDelayMillis: o.scheduleDelayMs,
      maxExportBatchSize: Math.min(o.maxExportBatchSize, o.maxQueueSize),
      maxQueueSize: o.maxQueueSize,
      exportTimeoutMillis: o.exportTimeoutMs,
    });
    this.provider = new BasicTracerProvider({
      resource: defaultResource().merge(
        resourceFromAttributes({ ...o.resourceAttributes, [ATTR_SERVICE_NAME]: o.serviceName }),
      ),
      // every recorded call is exported, whatever the caller's sampling flag: the span stands for a
      // request-log record, which exists either way
      sampler: new AlwaysOnSampler(),
      spanProcessors: [new BoundedSpanProcessor(batches, exporter, o.maxQueueSize, count)],
    });
    this.tracer = this.provider.getTracer('model-gateway.request-log');
  }

  get enabled(): boolean {
    return this.tracer !== undefined;
  }

  /**
   * Queues the span of one recorded call; never throws, never waits. With the caller's W3C
   * `traceparent`, the span joins the caller's trace as a child of its span.
   */
  export(entry: RequestLogEntity, traceparent?: string): void {
    if (!this.tracer) return;
    const span = this.tracer.startSpan(
      spanName(entry),
      { kind: SpanKind.SERVER, startTime: entry.createdAt, attributes: spanAttributes(entry) },
      this.parentOf(traceparent),
    );
    if (isError(entry))
      span.setStatus({ code: SpanStatusCode.ERROR, message: entry.errorCode ?? `HTTP ${entry.status}` });
    else span.setStatus({ code: SpanStatusCode.OK });
    span.end(entry.createdAt + entry.latencyMs);
  }

  /**
   * Sends what is queued now (tests, shutdown). A collector that refuses the batch does not make this
   * throw: its spans are already counted as `failed` by the counted exporter, and warned about once.
   */
  async flush(): Promise<void> {
    await this.provider?.forceFlush().catch(() => undefined);
  }

  /**
   * Sends what is queued, waiting at most one export timeout: a collector that hangs does not hold
   * the process past its shutdown.
   */
  async onApplicationShutdown(): Promise<void> {
    if (!this.provider) return;
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((done) => (timer = setTimeout(done, this.shutdownTimeoutMs).unref()));
    await Promise.race([this.provider.shutdown().catch(() => undefined), bound]);
    clearTimeout(timer);
  }

  private parentOf(traceparent: string | undefined): Context {
    if (!traceparent) return ROOT_CONTEXT;
    return this.propagator.extract(ROOT_CONTEXT, { traceparent }, defaultTextMapGetter);
  }

  private counted(outcome: SpanOutcome, n: number): void {
    this.metrics.spans(outcome, n);
    if (outcome === 'exported') this.warned = false;
    else if (outcome === 'failed' && !this.warned) {
      this.warned = true;
      this.log.warn('trace export failed; spans dropped');
    }
  }
}
