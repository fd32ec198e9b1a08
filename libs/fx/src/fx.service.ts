import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { Gauge } from 'prom-client';
import { Clock, MetricsService } from '@app/common';
import { AppConfig } from '@app/config';
import { parseCbrDaily } from './cbr-xml';
import { FxRateEntity, FxStatusEntity } from './fx.entities';
import { FxRepository } from './fx.repository';

/** The rate prices are converted with: RUB per USD, its CBR date, and the operator's markup. */
export interface FxQuote {
  rate: string;
  date: string;
  markupPercent: number;
}

const CURRENCY = 'USD';
const HOUR = 3_600_000;
/** a successful fetch is repeated after a day; a failed one after an hour */
const REFETCH_MS = 24 * HOUR;
const RETRY_MS = HOUR;
/** how often each replica re-reads the rates other replicas stored */
const RELOAD_MS = 60_000;
const MAX_XML_BYTES = 2 * 1024 * 1024;
const FETCH_TIMEOUT_MS = 15_000;

const moscowDate = new Intl.DateTimeFormat('en-CA', {
  timeZone: 'Europe/Moscow',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
});

/**
 * The Central Bank of Russia's USD rate: fetched from FX_RATES_URL (the CBR daily XML) on start and
 * once a day, stored by date in the database (shared by the replicas), and served from memory. The
 * rate of a day is the newest one whose date is not after that day in Moscow. A failed fetch keeps
 * the last rate; FX_STALE_HOURS without a successful fetch raise the stale alert once (log, metric,
 * GET /api/v1/fx-rates).
 */
@Injectable()
export class FxService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly log = new Logger('FxRates');
  private readonly startedAt: number;
  /** the newest rates, newest first */
  private recent: FxRateEntity[] = [];
  private status: FxStatusEntity | null = null;
  private timers: NodeJS.Timeout[] = [];
  private fetching: Promise<void> | null = null;
  private readonly abort = new AbortController();
  private readonly staleGauge: Gauge;
  private readonly listeners: (() => void)[] = [];

  constructor(
    private readonly repo: FxRepository,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    metrics: MetricsService,
  ) {
    this.startedAt = clock.now();
    this.staleGauge = new Gauge({
      name: 'gateway_fx_rate_stale',
      help: '1 while the CBR USD rate has not been fetched for FX_STALE_HOURS (the stale alert is raised)',
      registers: [metrics.registry],
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.reload();
    if (this.config.fx.ratesUrl) void this.refresh();
    this.timers.push(
      setInterval(() => void this.tick(), Math.min(RETRY_MS, this.config.fx.checkIntervalMs)).unref(),
      setInterval(
        () => void this.reload().catch((err: unknown) => this.log.warn({ err }, 'reload failed')),
        RELOAD_MS,
      ).unref(),
    );
  }

  onModuleDestroy(): void {
    for (const t of this.timers) clearInterval(t);
    this.abort.abort();
  }

  /** Told whenever the rate in memory may have changed (prices computed with the old one are stale). */
  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  /** Today's rate (Moscow date): the newest stored rate not dated after today, or null when there is none. */
  current(): FxQuote | null {
    const today = moscowDate.format(this.clock.now());
    const r = this.recent.find((x) => x.rateDate <= today);
    return r ? { rate: r.rate, date: r.rateDate, markupPercent: this.config.fx.markupPercent } : null;
  }

  /** What GET /api/v1/fx-rates shows. */
  state(): { quote: FxQuote | null; fetchedAt: number | null; status: FxStatusEntity | null; stale: boolean } {
    const quote = this.current();
    const row = quote ? this.recent.find((r) => r.rateDate === quote.date) : undefined;
    return { quote, fetchedAt: row?.fetchedAt ?? null, status: this.status, stale: this.isStale() };
  }

  /** Re-reads the newest rates and the fetcher's status from the database. */
  async reload(): Promise<void> {
    const before = this.current();
    this.recent = await this.repo.recent(CURRENCY, 10);
    this.status = await this.repo.status(CURRENCY);
    this.staleGauge.set(this.status?.alertRaisedAt ? 1 : 0);
    const after = this.current();
    if (before?.date !== after?.date || before?.rate !== after?.rate) for (const l of this.listeners) l();
  }

  /** The hourly check: fetch when the last success is a day old (an hour after a failure), then the stale check. */
  async tick(): Promise<void> {
    const now = this.clock.now();
    const s = this.status;
    const due =
      (s?.lastSuccessAt ?? 0) + REFETCH_MS <= now && (s?.lastAttemptAt ?? 0) + (s?.lastError ? RETRY_MS : 0) <= now;
    try {
      if (due && this.config.fx.ratesUrl) await this.refresh();
      else await this.checkStale();
    } catch (err) {
      this.log.warn({ err }, 'rate check failed');
    }
  }

  /** Fetches the CBR daily list now and stores its USD rate; a failure keeps the last rate. Then the stale check. */
  refresh(): Promise<void> {
    this.fetching ??= this.fetchAndStore().finally(() => (this.fetching = null));
    return this.fetching;
  }

  private async fetchAndStore(): Promise<void> {
    const url = this.config.fx.ratesUrl;
    if (!url) return;
    const at = this.clock.now();
    try {
      const daily = parseCbrDaily(await this.download(url));
      const usd = daily.rates.get(CURRENCY);
      if (!usd) throw new Error(`the list of ${daily.date} has no ${CURRENCY} rate`);
      await this.repo.insertRate({
        currency: CURRENCY,
        rateDate: daily.date,
        rate: usd.rate,
        nominal: usd.nominal,
        value: usd.value,
        fetchedAt: at,
      });
      await this.repo.saveStatus(CURRENCY, {
        lastAttemptAt: at,
        lastSuccessAt: at,
        lastError: null,
        alertRaisedAt: null,
      });
      this.log.log({ date: daily.date, rate: usd.rate }, 'CBR rate fetched');
    } catch (err) {
      const message = (err as Error).message?.slice(0, 500) || String(err);
      this.log.warn({ url, err: message }, 'CBR rate fetch failed; the last rate stays in use');
      await this.repo.saveStatus(CURRENCY, { lastAttemptAt: at, lastError: message });
    }
    await this.reload();
    await this.checkStale();
  }

  private async download(url: string): Promise<Buffer> {
    const res = await fetch(url, {
      signal: AbortSignal.any([this.abort.signal, AbortSignal.timeout(FETCH_TIMEOUT_MS)]),
      headers: { accept: 'application/xml, text/xml' },
    });
    if (!res.ok) throw new Error(`${url} answered HTTP ${res.status}`);
    const body = Buffer.from(await res.arrayBuffer());
    if (body.length > MAX_XML_BYTES) throw new Error(`${url} answered more than ${MAX_XML_BYTES} bytes`);
    return body;
  }

  private isStale(): boolean {
    const since = this.status?.lastSuccessAt ?? this.startedAt;
    return this.clock.now() - since > this.config.fx.staleHours * HOUR;
  }

  /**
   * Raises the stale alert once (across replicas: the row that still has no alert wins) when no
   * fetch succeeded for FX_STALE_HOURS. Returns true when the alert is up.
   */
  async checkStale(): Promise<boolean> {
    if (!this.isStale()) return false;
    const now = this.clock.now();
    if (await this.repo.raiseAlert(CURRENCY, now)) {
      const last = this.current();
      this.log.error(
        { lastSuccessAt: this.status?.lastSuccessAt ?? null, lastRate: last, staleHours: this.config.fx.staleHours },
        `The CBR ${CURRENCY} rate has not been fetched for more than ${this.config.fx.staleHours} h (FX_RATES_URL); prices use the rate of ${last?.date ?? 'no date: USD-priced models answer 503'}`,
      );
    }
    await this.reload();
    return true;
  }
}
