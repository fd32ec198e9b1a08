import { Injectable } from '@nestjs/common';
import { ApiError } from '@app/common';
import { FxService } from '@app/fx';
import type { CatalogPricer, ModelEntry } from '@app/providers';
import { forTeam, inRub, type TeamPricing } from './team-prices';

/**
 * The catalog's pricer: an entry in RUB (USD entries at today's CBR rate with FX_MARKUP_PERCENT)
 * at the team's prices. Results are cached until the catalog, the team prices or the rate change.
 */
@Injectable()
export class PriceResolver implements CatalogPricer {
  private teams = new Map<string, TeamPricing>();
  private cache = new Map<string, ModelEntry>();
  private cacheGen = -1;

  constructor(private readonly fx: FxService) {}

  /** Replaces every team's prices (the pricing sync's reload). */
  setTeams(teams: Map<string, TeamPricing>): void {
    this.teams = teams;
    this.cache.clear();
  }

  team(teamId: string): TeamPricing | undefined {
    return this.teams.get(teamId);
  }

  price(entry: ModelEntry, teamId: string | null, generation: number): ModelEntry {
    let quote = null;
    if (entry.currency === 'USD') {
      quote = this.fx.current();
      if (!quote)
        throw ApiError.unavailable(
          `The model '${entry.key}' is priced in USD and no CBR rate is known yet; try again later.`,
          'fx_rate_unavailable',
        );
    }
    const rateKey = quote ? `${quote.date}:${quote.rate}:${quote.markupPercent}` : null;
    // a new catalog generation (an override applied) makes every cached price stale
    if (generation !== this.cacheGen || this.cache.size > 10_000) {
      this.cache.clear();
      this.cacheGen = generation;
    }
    const key = `${teamId ?? ''}\u0000${entry.key}\u0000${rateKey ?? ''}`;
    let out = this.cache.get(key);
    if (!out) {
      const team = teamId ? this.teams.get(teamId) : undefined;
      out = forTeam(quote ? inRub(entry, quote) : entry, team);
      this.cache.set(key, out);
    }
    return out;
  }
}
