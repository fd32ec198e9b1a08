import type { Metric, Registry } from 'prom-client';

/** One series (one set of label values) of a SeriesHistogram: what a request observes into. */
export class HistogramSeries {
  /** per bucket, not cumulative: counts[i] = observations in (upperBounds[i - 1], upperBounds[i]] */
  readonly counts: number[];
  sum = 0;
  count = 0;

  constructor(
    readonly labels: Readonly<Record<string, string>>,
    private readonly upperBounds: readonly number[],
  ) {
    this.counts = new Array<number>(upperBounds.length).fill(0);
  }

  observe(value: number): void {
    if (!Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${value}`);
    const bounds = this.upperBounds;
    for (let i = 0; i < bounds.length; i++) {
      if (value <= bounds[i]) {
        this.counts[i]++;
        break;
      }
    }
    this.sum += value;
    this.count++;
  }
}

/**
 * A Prometheus histogram whose series the caller keeps (`series(labels)`, once per label set), so an
 * observation is a bucket search and three additions. prom-client's Histogram validates the labels,
 * builds their hash string and allocates on every `observe`, and its `labels()` children do the same
 * per call. Registered in a prom-client Registry like any metric: the exposition is prom-client's,
 * in the same shape (`_bucket` with `le`, cumulative, `+Inf`, `_sum`, `_count`). See
 * docs/decisions/metrics-series-histogram.md.
 */
export class SeriesHistogram {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly all: HistogramSeries[] = [];
  private readonly upperBounds: readonly number[];

  constructor(
    readonly name: string,
    readonly help: string,
    buckets: readonly number[],
    registry: Registry,
  ) {
    this.upperBounds = [...buckets].sort((a, b) => a - b);
    registry.registerMetric(this as unknown as Metric);
  }

  /** A new series for these label values (keep it: each call starts another series). */
  series(labels: Record<string, string>): HistogramSeries {
    const s = new HistogramSeries({ ...labels }, this.upperBounds);
    this.all.push(s);
    return s;
  }

  reset(): void {
    for (const s of this.all) {
      s.counts.fill(0);
      s.sum = 0;
      s.count = 0;
    }
  }

  /** The prom-client metric object the registry formats. */
  get(): Promise<{
    name: string;
    help: string;
    type: 'histogram';
    aggregator: 'sum';
    values: { metricName: string; labels: Record<string, string | number>; value: number }[];
  }> {
    const values: { metricName: string; labels: Record<string, string | number>; value: number }[] = [];
    const bucket = `${this.name}_bucket`;
    for (const s of this.all) {
      if (s.count === 0) continue; // like prom-client: a series appears once it was observed
      let acc = 0;
      this.upperBounds.forEach((le, i) => {
        acc += s.counts[i];
        values.push({ metricName: bucket, labels: { le, ...s.labels }, value: acc });
      });
      values.push({ metricName: bucket, labels: { le: '+Inf', ...s.labels }, value: s.count });
      values.push({ metricName: `${this.name}_sum`, labels: { ...s.labels }, value: s.sum });
      values.push({ metricName: `${this.name}_count`, labels: { ...s.labels }, value: s.count });
    }
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values });
  }
}
