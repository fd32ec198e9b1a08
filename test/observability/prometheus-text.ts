/**
 * GET /metrics parsed with parse-prometheus-text-format (test-only helper): series values looked up
 * by name and labels, so the suites assert what a Prometheus server would read. That parser folds
 * the series of a LABELLED histogram into one bucket map (it only handles unlabelled ones), so the
 * histogram samples (`_count`, `_sum`, `_bucket`) are also read from a second parse of the same text
 * without the histograms' `# TYPE` lines, where each is a plain (untyped) series with its labels.
 */
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import request from 'supertest';

export interface Series {
  labels?: Record<string, string>;
  value?: string;
  count?: string;
  sum?: string;
  buckets?: Record<string, string>;
}
export interface Family {
  name: string;
  help: string;
  type: string;
  metrics: Series[];
}

export class Scrape {
  private readonly samples: Family[];

  constructor(
    readonly families: Family[],
    readonly text: string,
  ) {
    const histograms = new Set(families.filter((f) => f.type === 'HISTOGRAM').map((f) => f.name));
    const untyped = text
      .split('\n')
      .filter((l) => {
        const m = /^# (TYPE|HELP) (\S+)/.exec(l);
        return !m || !histograms.has(m[2]);
      })
      .join('\n');
    this.samples = parsePrometheusTextFormat(untyped) as Family[];
  }

  static async of(url: string, token?: string): Promise<Scrape> {
    const req = request(url).get('/metrics');
    if (token) req.set('authorization', `Bearer ${token}`);
    const res = await req;
    if (res.status !== 200) throw new Error(`/metrics answered ${res.status}: ${res.text}`);
    return new Scrape(parsePrometheusTextFormat(res.text) as Family[], res.text);
  }

  family(name: string): Family | undefined {
    return this.families.find((f) => f.name === name);
  }

  private matching(name: string, labels: Record<string, string>, from: Family[] = this.families): Series[] {
    // (in the untyped parse, one name may come back as several consecutive families)
    return from
      .filter((f) => f.name === name)
      .flatMap((f) => f.metrics)
      .filter((s) => Object.entries(labels).every(([k, v]) => s.labels?.[k] === v));
  }

  /** Sum of the counter/gauge series of `name` whose labels include `labels` (0 when none). */
  value(name: string, labels: Record<string, string> = {}): number {
    return this.matching(name, labels).reduce((a, s) => a + Number(s.value ?? 0), 0);
  }

  /** Histogram observation count and sum of the series whose labels include `labels`. */
  histogram(name: string, labels: Record<string, string> = {}): { count: number; sum: number } {
    const total = (suffix: string) =>
      this.matching(`${name}_${suffix}`, labels, this.samples).reduce((a, s) => a + Number(s.value ?? 0), 0);
    return { count: total('count'), sum: total('sum') };
  }
}
