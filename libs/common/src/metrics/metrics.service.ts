import { Injectable, Logger, OnModuleDestroy, OnModuleInit, Optional } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import { HistogramSeries, SeriesHistogram } from './series-histogram';
import { Clock } from '../clock';

/** Seconds: from a few ms (cached answers, validation errors) to long streamed completions. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
/** Seconds: what the gateway adds around the upstream call (kept in the low milliseconds; docs/performance.md). */
const OVERHEAD_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/** How long a scrape reuses the ingestion-job counts (a GROUP BY on the jobs table). */
export const INGESTION_GAUGE_TTL_MS = 5_000;

/** States an ingestion job can be in (the gauge reports all of them, zeros included). */
export type IngestionJobCounts = Record<string, number>;

/** What a finished HTTP request contributes to the metrics (filled by the request observer). */
export interface HttpObservation {
  method: string;
  /** the route TEMPLATE (e.g. /v1/files/:id), never the raw path; 'unmatched' when no route matched */
  route: string;
  status: number;
  totalSeconds: number;
  /** time spent in upstream work (BillingService.meter's run), 0 when there was none */
  upstreamSeconds: number;
  hadUpstream: boolean;
  /** the `x-gateway-overhead-ms` value sent (s); null when no headers went out (client gone first) */
  overheadSeconds: number | null;
}

type UpstreamErrorKind = string;

/**
 * All metrics of the gateway, in one Prometheus registry per application instance (tests run several
 * apps in one process). Services call the typed methods below; nothing else touches prom-client.
 *
 * Who calls what:
 *  - request observer (every HTTP request): httpRequest
 *  - BillingService.meter (every charged operation): charged
 *  - chat / embeddings / images on a failed upstream call: upstreamError
 *  - retries, fallbacks (deployments): upstreamRetry, fallback
 *  - rate limits and budgets: rateLimited
 *  - rerank: rerankCache
 *  - data protection (masked or blocked personal data): dataProtection
 *  - billing (open holds) and knowledge (ingestion jobs): register gauge sources, read at scrape time
 *
 * The hot path is label lookups only: label objects are cached per value, and the per-request
 * histograms are SeriesHistograms whose series are kept per route (no label hashing per observation).
 */
@Injectable()
export class MetricsService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('Metrics');
  readonly registry = new Registry();

  private readonly httpRequests = new Counter({
    name: 'gateway_http_requests_total',
    help: 'HTTP requests answered, by method, route template and status code.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });
  // the three per-request histograms keep their series (see SeriesHistogram): observing is a bucket search
  private readonly requestDuration = new SeriesHistogram(
    'gateway_request_duration_seconds',
    'Total time from the first byte of the request to the end of the response (streams included), by route template.',
    LATENCY_BUCKETS,
    this.registry,
  );
  private readonly upstreamDuration = new SeriesHistogram(
    'gateway_upstream_duration_seconds',
    'Time spent in upstream work (provider calls, streams, embeddings) per request that had any, by route template.',
    LATENCY_BUCKETS,
    this.registry,
  );
  private readonly overheadDuration = new SeriesHistogram(
    'gateway_overhead_duration_seconds',
    'Gateway time around the upstream work (total minus upstream) per request that had upstream work, by route template.',
    OVERHEAD_BUCKETS,
    this.registry,
  );
  private readonly gatewayOverhead = new SeriesHistogram(
    'gateway_overhead_seconds',
    'The x-gateway-overhead-ms of requests that had upstream work: gateway time up to the response headers minus the upstream runs (a stream: the part before the upstream call), by route template.',
    OVERHEAD_BUCKETS,
    this.registry,
  );
  private readonly upstreamErrors = new Counter({
    name: 'gateway_upstream_errors_total',
    help: 'Failed upstream calls, by provider, catalog model and kind (timeout, rate_limited, upstream, auth, invalid_request, …).',
    labelNames: ['provider', 'model', 'kind'] as const,
    registers: [this.registry],
  });
  private readonly upstreamRetries = new Counter({
    name: 'gateway_upstream_retries_total',
    help: 'Upstream calls retried, by provider and catalog model.',
    labelNames: ['provider', 'model'] as const,
    registers: [this.registry],
  });
  private readonly fallbacks = new Counter({
    name: 'gateway_fallbacks_total',
    help: 'Requests served by a fallback model after the requested one failed, by model pair.',
    labelNames: ['from', 'to'] as const,
    registers: [this.registry],
  });
  private readonly tokens = new Counter({
    name: 'gateway_tokens_total',
    help: 'Tokens charged, by catalog model and type (prompt or completion).',
    labelNames: ['model', 'type'] as const,
    registers: [this.registry],
  });
  private readonly costRub = new Counter({
    name: 'gateway_cost_rub_total',
    help: 'Amount charged to team balances in RUB, by catalog model.',
    labelNames: ['model'] as const,
    registers: [this.registry],
  });
  private readonly rerankCacheLookups = new Counter({
    name: 'gateway_rerank_cache_total',
    help: 'Rerank cache lookups, by result (hit, miss, unavailable).',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });
  private readonly rateLimitRejections = new Counter({
    name: 'gateway_rate_limited_total',
    help: 'Requests refused by a gateway rate limit or budget, by scope (key, team, …) and kind (requests, tokens, budget_day, budget_month).',
    labelNames: ['scope', 'kind'] as const,
    registers: [this.registry],
  });

  private readonly dataProtectionActions = new Counter({
    name: 'gateway_data_protection_requests_total',
    help: "Requests whose personal data the team's data policy masked or blocked, by team and action (masked, blocked).",
    labelNames: ['team', 'action'] as const,
    registers: [this.registry],
  });

  private readonly requestLogDrops = new Counter({
    name: 'gateway_request_log_dropped_total',
    help: 'Request-log data dropped because the write queue was full (what: body = bodies of a kept record, record = whole records) or the database refused a batch (what: record).',
    labelNames: ['what'] as const,
    registers: [this.registry],
  });
  private readonly requestLogWritten = new Counter({
    name: 'gateway_request_log_written_total',
    help: 'Request-log records written to the database.',
    registers: [this.registry],
  });
  private readonly traceSpans = new Counter({
    name: 'gateway_trace_spans_total',
    help: 'OpenTelemetry spans by result (exported, dropped: queue full, failed: the collector refused or was unreachable).',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });

  private openReservationsSource: (() => number) | null = null;
  private requestLogQueueSource: (() => number) | null = null;
  private ingestionSource: (() => Promise<IngestionJobCounts>) | null = null;
  private ingestionCache: { at: number; counts: IngestionJobCounts } | null = null;
  private ingestionInFlight: Promise<IngestionJobCounts> | null = null;
  private defaultMetricsStarted = false;

  private readonly resultLabels = new Map<string, Record<string, string>>();
  private readonly httpLabels = new Map<
    string,
    Map<string, Map<number, { method: string; route: string; status: string }>>
  >();
  private readonly routeDurations = new Map<string, Map<string, HistogramSeries>>();
  private readonly upstreamDurations = new Map<
    string,
    { upstream: HistogramSeries; overhead: HistogramSeries; sent: HistogramSeries }
  >();
  private readonly tokenLabels = new Map<
    string,
    { prompt: Record<string, string>; completion: Record<string, string>; model: Record<string, string> }
  >();

  /** `clock` times the cached ingestion gauge (the injected Clock in the app) */
  constructor(@Optional() private readonly clock: Clock = new Clock()) {
    const openReservations: Gauge = new Gauge({
      name: 'gateway_open_reservations',
      help: 'Balance holds of requests in flight on this replica.',
      registers: [this.registry],
      collect: () => {
        const source = this.openReservationsSource;
        if (source) openReservations.set(source());
      },
    });
    const requestLogQueue: Gauge = new Gauge({
      name: 'gateway_request_log_queue',
      help: 'Request-log records waiting in this replica for their write.',
      registers: [this.registry],
      collect: () => {
        const source = this.requestLogQueueSource;
        if (source) requestLogQueue.set(source());
      },
    });
    const ingestionJobs: Gauge<'state'> = new Gauge({
      name: 'gateway_ingestion_jobs',
      help: `Knowledge-base ingestion jobs by state (read from the database at scrape time, cached ${INGESTION_GAUGE_TTL_MS / 1000} s).`,
      labelNames: ['state'] as const,
      registers: [this.registry],
      collect: async () => {
        const counts = await this.ingestionCounts();
        for (const [state, n] of Object.entries(counts)) ingestionJobs.set({ state }, n);
      },
    });
  }

  /** Node/process metrics (CPU, memory, event loop lag, GC), started with the application only. */
  onModuleInit(): void {
    if (this.defaultMetricsStarted) return;
    this.defaultMetricsStarted = true;
    collectDefaultMetrics({ register: this.registry });
  }

  onModuleDestroy(): void {
    this.registry.clear();
  }

  /** The Prometheus text exposition of every metric. */
  async exposition(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }

  // ── called by the request observer ─────────────────────────────────────────────────────────────

  httpRequest(o: HttpObservation): void {
    this.httpRequests.inc(this.httpLabel(o.method, o.route, o.status));
    this.routeSeries(o.method, o.route).observe(o.totalSeconds);
    if (o.hadUpstream) {
      const r = this.upstreamSeries(o.route);
      r.upstream.observe(o.upstreamSeconds);
      r.overhead.observe(Math.max(0, o.totalSeconds - o.upstreamSeconds));
      if (o.overheadSeconds !== null) r.sent.observe(o.overheadSeconds);
    }
  }

  // ── called by services ─────────────────────────────────────────────────────────────────────────

  /** One charged operation (BillingService.meter): its tokens and its cost, by catalog model. */
  charged(model: string | null, promptTokens: number, completionTokens: number, costMicro: number): void {
    const l = this.tokenLabel(model ?? 'none');
    if (promptTokens > 0) this.tokens.inc(l.prompt, promptTokens);
    if (completionTokens > 0) this.tokens.inc(l.completion, completionTokens);
    if (costMicro > 0) this.costRub.inc(l.model, costMicro / 1_000_000);
  }

  /** A failed upstream call (each attempt, retries included), with the ProviderError kind. */
  upstreamError(provider: string, model: string, kind: UpstreamErrorKind): void {
    this.upstreamErrors.inc({ provider, model, kind });
  }

  /** An upstream call is about to be retried. */
  upstreamRetry(provider: string, model: string): void {
    this.upstreamRetries.inc({ provider, model });
  }

  /** A request moved from catalog model `from` to its fallback `to`. */
  fallback(from: string, to: string): void {
    this.fallbacks.inc({ from, to });
  }

  /** A request refused by a rate limit or a budget (`scope`: key, team, …; `kind`: requests, tokens, budget, …). */
  rateLimited(scope: string, kind: string): void {
    this.rateLimitRejections.inc({ scope, kind });
  }

  /** A request whose personal data was masked before the upstream call, or refused for it (data policy). */
  dataProtection(team: string, action: 'masked' | 'blocked'): void {
    this.dataProtectionActions.inc({ team, action });
  }

  /** One rerank cache lookup. */
  rerankCache(result: 'hit' | 'miss' | 'unavailable'): void {
    this.rerankCacheLookups.inc(this.label('result', result));
  }

  /** Request-log data dropped (the queue was full, or a batch the database refused). */
  requestLogDropped(what: 'body' | 'record', n = 1): void {
    this.requestLogDrops.inc({ what }, n);
  }

  requestLogWrote(n: number): void {
    this.requestLogWritten.inc(n);
  }

  /** OpenTelemetry spans by their fate. */
  spans(result: 'exported' | 'dropped' | 'failed', n = 1): void {
    this.traceSpans.inc(this.label('result', result), n);
  }

  // ── gauge sources, read at scrape time ─────────────────────────────────────────────────────────

  /** Request log: the records queued in this process. */
  observeRequestLogQueue(source: () => number): void {
    this.requestLogQueueSource = source;
  }

  /** Billing: the number of holds open in this process. */
  observeOpenReservations(source: () => number): void {
    this.openReservationsSource = source;
  }

  /** Knowledge: job counts by state (a cheap GROUP BY); cached INGESTION_GAUGE_TTL_MS between scrapes. */
  observeIngestionJobs(source: () => Promise<IngestionJobCounts>): void {
    this.ingestionSource = source;
    this.ingestionCache = null;
  }

  private async ingestionCounts(): Promise<IngestionJobCounts> {
    const source = this.ingestionSource;
    if (!source) return {};
    const now = this.clock.now();
    if (this.ingestionCache && now - this.ingestionCache.at < INGESTION_GAUGE_TTL_MS) return this.ingestionCache.counts;
    this.ingestionInFlight ??= source()
      .then((counts) => {
        this.ingestionCache = { at: this.clock.now(), counts };
        return counts;
      })
      .catch((err: unknown) => {
        // a scrape never fails because the database is away: the last known counts stay
        this.logger.warn({ err: (err as Error).message }, 'ingestion job counts unavailable');
        return this.ingestionCache?.counts ?? {};
      })
      .finally(() => (this.ingestionInFlight = null));
    return this.ingestionInFlight;
  }

  // ── cached label objects (no allocation per observation once a value was seen) ────────────────

  private label(name: 'result', value: string): Record<string, string> {
    let l = this.resultLabels.get(value);
    if (!l) this.resultLabels.set(value, (l = { [name]: value }));
    return l;
  }

  private routeSeries(method: string, route: string): HistogramSeries {
    let byRoute = this.routeDurations.get(method);
    if (!byRoute) this.routeDurations.set(method, (byRoute = new Map()));
    let series = byRoute.get(route);
    if (!series) byRoute.set(route, (series = this.requestDuration.series({ method, route })));
    return series;
  }

  private upstreamSeries(route: string): {
    upstream: HistogramSeries;
    overhead: HistogramSeries;
    sent: HistogramSeries;
  } {
    let series = this.upstreamDurations.get(route);
    if (!series)
      this.upstreamDurations.set(
        route,
        (series = {
          upstream: this.upstreamDuration.series({ route }),
          overhead: this.overheadDuration.series({ route }),
          sent: this.gatewayOverhead.series({ route }),
        }),
      );
    return series;
  }

  private httpLabel(method: string, route: string, status: number): { method: string; route: string; status: string } {
    let byRoute = this.httpLabels.get(method);
    if (!byRoute) this.httpLabels.set(method, (byRoute = new Map()));
    let byStatus = byRoute.get(route);
    if (!byStatus) byRoute.set(route, (byStatus = new Map()));
    let l = byStatus.get(status);
    if (!l) byStatus.set(status, (l = { method, route, status: String(status) }));
    return l;
  }

  private tokenLabel(model: string): {
    prompt: Record<string, string>;
    completion: Record<string, string>;
    model: Record<string, string>;
  } {
    let l = this.tokenLabels.get(model);
    if (!l)
      this.tokenLabels.set(
        model,
        (l = { prompt: { model, type: 'prompt' }, completion: { model, type: 'completion' }, model: { model } }),
      );
    return l;
  }
}
