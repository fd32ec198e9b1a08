import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { AppConfig } from '@app/config';
import { CatalogOverride, ModelCatalogService } from '@app/providers';
import { PriceResolver } from './price-resolver';
import { PricingRepository } from './pricing.repository';
import type { TeamPricing } from './team-prices';

/**
 * Keeps this replica's catalog and team prices equal to the database's: loads them at start, then
 * polls the version row every CATALOG_REFRESH_MS and reloads when it moved; a change made here is
 * applied at once. Requests price their models when they start, so a change applies to requests
 * that start after it.
 */
@Injectable()
export class PricingSync implements OnModuleInit, OnModuleDestroy {
  private readonly log = new Logger('Pricing');
  private seen = -1;
  private timer?: NodeJS.Timeout;
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly repo: PricingRepository,
    private readonly catalog: ModelCatalogService,
    private readonly resolver: PriceResolver,
    private readonly config: AppConfig,
  ) {}

  async onModuleInit(): Promise<void> {
    this.catalog.setPricer(this.resolver);
    await this.reload();
    this.timer = setInterval(() => void this.poll(), this.config.fx.catalogRefreshMs);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  /** Reloads when the version row moved (another replica's change). */
  async poll(): Promise<void> {
    try {
      if ((await this.repo.version()) !== this.seen) await this.reload();
    } catch (err) {
      this.log.warn({ err }, 'price poll failed; the previous prices stay in use');
    }
  }

  /** Reads the overrides and team prices and applies them (one load at a time). */
  reload(): Promise<void> {
    const run = async () => {
      const version = await this.repo.version();
      const [overrides, teams] = await Promise.all([this.repo.overrides(), this.repo.teamPricing()]);
      const list = overrides.map((o) => ({ ...(JSON.parse(o.data) as Omit<CatalogOverride, 'key'>), key: o.modelKey }));
      try {
        this.catalog.applyOverrides(list);
      } catch (err) {
        // stored overrides were validated when written; one this replica's MODELS_FILE makes invalid is logged
        this.log.error({ err: (err as Error).message }, 'catalog overrides not applied on this replica');
      }
      this.resolver.setTeams(new Map(teams.map((t) => [t.teamId, JSON.parse(t.data) as TeamPricing])));
      this.seen = version;
    };
    this.chain = this.chain.then(run, run);
    return this.chain;
  }
}
