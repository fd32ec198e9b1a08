import type { Context } from '@opentelemetry/api';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, Span, SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace-base';

export type SpanOutcome = 'exported' | 'dropped' | 'failed';

/**
 * The exporter, counted: every span it is given ends as `exported` or `failed`, and `pending` says
 * how many are queued or on their way.
 */
export class CountingExporter implements SpanExporter {
  pending = 0;

  constructor(
    private readonly inner: SpanExporter,
    private readonly count: (outcome: SpanOutcome, n: number) => void,
  ) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.inner.export(spans, (result) => {
      this.pending -= spans.length;
      this.count(result.code === ExportResultCode.SUCCESS ? 'exported' : 'failed', spans.length);
      done(result);
    });
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

/**
 * A bound in front of the SDK's batch processor: a span that would make more than `maxQueued`
 * waiting or in flight is dropped and counted here (the batch processor itself drops silently), so
 * a collector that hangs costs at most that many spans of memory and never a request's time.
 */
export class BoundedSpanProcessor implements SpanProcessor {
  constructor(
    private readonly inner: SpanProcessor,
    private readonly exporter: CountingExporter,
    private readonly maxQueued: number,
    private readonly count: (outcome: SpanOutcome, n: number) => void,
  ) {}

  onStart(span: Span, parentContext: Context): void {
    this.inner.onStart(span, parentContext);
  }

  onEnd(span: ReadableSpan): void {
    if (this.exporter.pending >= this.maxQueued) {
      this.count('dropped', 1);
      return;
    }
    this.exporter.pending++;
    this.inner.onEnd(span);
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush();
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }
}
