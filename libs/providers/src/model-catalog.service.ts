import { Injectable } from '@nestjs/common';
import { ApiError, RequestScope } from '@app/common';
import { AppConfig } from '@app/config';
import { CatalogError, loadCatalog, ModelEntry, ModelKind } from './catalog/model-catalog';
import { applyOverrides, CatalogOverride, CatalogSource, EffectiveCatalog } from './catalog/catalog-overrides';
import { findProviderDefinition, Jurisdiction, PROVIDER_NAMES } from './provider-definitions';
import { ProviderRegistry } from './provider-registry';

/**
 * Turns a catalog entry into the RUB prices one team pays (USD entries at the day's CBR rate, the
 * team's discount or own prices). Registered by the pricing module; throws an ApiError (503
 * fx_rate_unavailable) when a USD entry has no rate to be priced with.
 */
export interface CatalogPricer {
  price(entry: ModelEntry, teamId: string | null, generation: number): ModelEntry;
}

/** Without a pricer: RUB entries as they are; USD entries cannot be priced. */
const RUB_ONLY: CatalogPricer = {
  price(entry) {
    if (entry.currency === 'RUB') return entry;
    throw ApiError.unavailable(
      `The model '${entry.key}' is priced in USD and no CBR rate is known yet; try again later.`,
      'fx_rate_unavailable',
    );
  },
};

/** The team of the authenticated caller of the request this code runs for (null: none). */
function requestTeam(): string | null {
  const req = RequestScope.current() as { caller?: { teamId?: string } } | undefined;
  return req?.caller?.teamId ?? null;
}

/**
 * The model catalog: built-in + MODELS_FILE (validated once at start) with the operators' database
 * overrides applied (`applyOverrides`, refreshed by the pricing module on every replica), and
 * MODEL_ALIASES. `find` / `require` answer entries priced in RUB for the calling team; `entry`
 * answers the unpriced entry (its provider, capabilities).
 */
@Injectable()
export class ModelCatalogService {
  private readonly base: ModelEntry[];
  private readonly baseSources = new Map<string, 'builtin' | 'file'>();
  private readonly envAliases: Record<string, string>;
  private current!: EffectiveCatalog;
  private aliases = new Map<string, ModelEntry>();
  private models: ModelEntry[] = [];
  private pricer: CatalogPricer = RUB_ONLY;
  /** bumped by every applyOverrides: cached prices of an older generation are stale */
  private gen = 0;

  constructor(
    config: AppConfig,
    private readonly registry: ProviderRegistry,
  ) {
    this.base = loadCatalog(config.modelsFile, [...PROVIDER_NAMES], this.baseSources);
    this.envAliases = { ...(config.modelAliases ?? {}) };
    const keys = new Set(this.base.map((m) => m.key));
    for (const [alias, key] of Object.entries(this.envAliases))
      if (!keys.has(key))
        throw new CatalogError(`MODEL_ALIASES: "${alias}" names "${key}", which is not in the catalog`);
    this.applyOverrides([]);
  }

  /** Validates the catalog `overrides` would give, without applying it (CatalogError when invalid). */
  preview(overrides: CatalogOverride[]): EffectiveCatalog {
    return applyOverrides(this.base, overrides);
  }

  /** Replaces the database overrides (all of them); throws CatalogError, keeping the previous ones, when invalid. */
  applyOverrides(overrides: CatalogOverride[]): void {
    const next = applyOverrides(this.base, overrides);
    const aliases = new Map<string, ModelEntry>();
    // a catalog key always wins over an alias of the same name
    for (const [alias, key] of Object.entries(this.envAliases)) {
      const target = next.byKey.get(key);
      if (target && !next.byKey.has(alias)) aliases.set(alias, target);
    }
    for (const [alias, key] of next.aliases) aliases.set(alias, next.byKey.get(key)!);
    this.current = next;
    this.aliases = aliases;
    this.models = [...next.byKey.values()];
    this.gen++;
  }

  /** Registers the price rules of teams and currencies (the pricing module). */
  setPricer(pricer: CatalogPricer): void {
    this.pricer = pricer;
    this.gen++;
  }

  /** Changes with every override or pricer change (for price caches). */
  get generation(): number {
    return this.gen;
  }

  /** Enabled entries, unpriced (prices in each entry's currency). */
  list(): ModelEntry[] {
    return this.models;
  }

  /** Every entry operators see: enabled and disabled, with where it comes from. */
  adminList(): {
    entry: ModelEntry;
    enabled: boolean;
    source: CatalogSource;
    aliases: string[];
    override: CatalogOverride | null;
  }[] {
    const aliasesOf = new Map<string, string[]>();
    for (const [alias, key] of this.current.aliases) aliasesOf.set(key, [...(aliasesOf.get(key) ?? []), alias]);
    const out = [];
    for (const m of this.base) {
      const disabled = this.current.disabled.get(m.key);
      const entry = disabled ?? this.current.byKey.get(m.key) ?? m;
      const source: CatalogSource = this.current.overridden.has(m.key) ? 'database' : this.baseSources.get(m.key)!;
      out.push({
        entry,
        enabled: !disabled,
        source,
        aliases: aliasesOf.get(m.key) ?? [],
        override: this.current.overrides.get(m.key) ?? null,
      });
    }
    return out;
  }

  /** The built-in / MODELS_FILE entry of `key` (before database overrides), or undefined. */
  baseEntry(key: string): ModelEntry | undefined {
    return this.base.find((m) => m.key === key);
  }

  /** The enabled entry of a catalog key or alias, unpriced (provider, capabilities). */
  entry(key: string): ModelEntry | undefined {
    return this.current.byKey.get(key) ?? this.aliases.get(key);
  }

  /**
   * The entry of a catalog key or alias, priced in RUB for `teamId` (default: the team of the
   * request this runs for). Throws 503 fx_rate_unavailable for a USD-priced model with no rate.
   */
  find(key: string, teamId?: string | null): ModelEntry | undefined {
    const m = this.entry(key);
    return m ? this.priced(m, teamId) : undefined;
  }

  /**
   * Like `find`, but a model that cannot be priced now (USD-priced, no CBR rate) is undefined
   * instead of a 503: for optional candidates such as the catalog's fallbacks.
   */
  findPriceable(key: string, teamId?: string | null): ModelEntry | undefined {
    const m = this.entry(key);
    return (m && this.pricedOrNull(m, teamId)) ?? undefined;
  }

  /** `m` priced for the team, or null when it cannot be priced now (USD-priced, no CBR rate). */
  pricedOrNull(m: ModelEntry, teamId?: string | null): ModelEntry | null {
    try {
      return this.priced(m, teamId);
    } catch (err) {
      if (err instanceof ApiError && err.code === 'fx_rate_unavailable') return null;
      throw err;
    }
  }

  /** `m` priced in RUB for `teamId` (default: the request's team). */
  priced(m: ModelEntry, teamId?: string | null): ModelEntry {
    return this.pricer.price(m, teamId === undefined ? requestTeam() : teamId, this.gen);
  }

  /** The entry for `key` of the given kind; 404 model_not_found otherwise (param "model"). */
  require(key: string, kind: ModelKind, teamId?: string | null): ModelEntry {
    const m = this.entry(key);
    if (!m)
      throw ApiError.notFound(
        `The model '${key}' does not exist. GET /v1/models lists the available models.`,
        'model_not_found',
        'model',
      );
    if (m.kind !== kind)
      throw ApiError.badRequest(
        `The model '${key}' is a ${m.kind} model and cannot be used here (expected a ${kind} model).`,
        'model',
        'invalid_model',
      );
    return this.priced(m, teamId);
  }

  isAvailable(m: ModelEntry): boolean {
    return this.registry.isAvailable(m);
  }

  /** Why the model is unavailable (the credentials to set), or null when it is available. */
  unavailableReason(m: ModelEntry): string | null {
    return this.registry.unavailableReason(m);
  }

  /** Where the model's provider keeps the data (its definition's `jurisdiction`). */
  jurisdiction(m: ModelEntry): Jurisdiction {
    const d = findProviderDefinition(m.provider);
    if (!d) throw new Error(`Model ${m.key}: unknown provider "${m.provider}"`); // the catalog refuses these at start
    return d.jurisdiction;
  }
}
