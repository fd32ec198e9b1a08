import { findProviderDefinition } from '../provider-definitions';
import {
  CatalogError,
  checkFallbacks,
  DeploymentSpec,
  ModelEntry,
  ModelPricing,
  parseModelEntry,
  PriceCurrency,
} from './model-catalog';

/** Where an entry of the effective catalog comes from. */
export type CatalogSource = 'builtin' | 'file' | 'database';

/**
 * An operator's change to one catalog entry, stored in the database and merged over the built-in
 * catalog and MODELS_FILE. Prices are in `currency` (the entry's own when absent); a field left out
 * keeps the underlying entry's value.
 */
export interface CatalogOverride {
  key: string;
  /** false: the model answers like an unknown one (404) */
  enabled: boolean;
  currency?: PriceCurrency;
  pricing?: Partial<Record<keyof ModelPricing, number | null>>;
  /** image models: the per-image table and the price of image input tokens */
  image?: { per_image_rub?: Record<string, Record<string, number>>; image_input_rub_per_1m?: number };
  /** extra names the model answers to */
  aliases?: string[];
  /** replaces the entry's fallbacks */
  fallbacks?: string[];
  /** replaces the entry's deployments (null: the provider's own connection) */
  deployments?: DeploymentSpec[] | null;
}

export interface EffectiveCatalog {
  /** enabled entries, by key */
  byKey: Map<string, ModelEntry>;
  /** entries switched off by an override (shown to operators, never served) */
  disabled: Map<string, ModelEntry>;
  /** alias → catalog key, from the overrides */
  aliases: Map<string, string>;
  /** keys with an override */
  overridden: Set<string>;
  /** the override of each key that has one, as stored */
  overrides: Map<string, CatalogOverride>;
}

const ALIAS = /^[A-Za-z0-9][A-Za-z0-9._:/@-]{0,199}$/;

/** The entry `base` with `o`'s changes, validated like a MODELS_FILE entry. */
export function mergeOverride(base: ModelEntry, o: CatalogOverride): ModelEntry {
  const raw: Record<string, unknown> = {
    ...base,
    currency: o.currency ?? base.currency,
    fallbacks: o.fallbacks ?? base.fallbacks,
    deployments: o.deployments !== undefined ? o.deployments : base.deployments,
    pricing: { ...base.pricing, ...(o.pricing ?? {}) },
  };
  if (base.image) raw.image = { ...base.image, ...(o.image ?? {}) };
  const merged = parseModelEntry(raw, `database override`);
  // deployments replace a provider's connection settings: only providers with env vars have them
  if (merged.deployments && !findProviderDefinition(merged.provider)?.env)
    throw new CatalogError(
      `model ${merged.key}: the ${merged.provider} provider has no deployments (it has no connection settings)`,
    );
  return merged;
}

/**
 * Built-in + MODELS_FILE entries (`base`) with the database overrides applied. Overrides of keys
 * the base does not have are skipped (another replica's MODELS_FILE may have them). Throws
 * CatalogError when an enabled entry's prices are invalid, a fallback names no model, or an alias
 * collides with a model key or another alias.
 */
export function applyOverrides(base: ModelEntry[], overrides: CatalogOverride[]): EffectiveCatalog {
  const all = new Map(base.map((m) => [m.key, m]));
  const disabled = new Map<string, ModelEntry>();
  const overridden = new Set<string>();
  const byOverride = new Map<string, CatalogOverride>();
  const aliases = new Map<string, string>();
  for (const o of overrides) {
    const b = all.get(o.key);
    if (!b) continue;
    overridden.add(o.key);
    byOverride.set(o.key, o);
    let merged: ModelEntry;
    try {
      merged = mergeOverride(b, o);
    } catch (err) {
      // a disabled entry is never priced: its draft prices may stay incomplete
      if (o.enabled) throw err;
      merged = b;
    }
    all.set(o.key, merged);
    if (!o.enabled) disabled.set(o.key, merged);
    for (const alias of o.aliases ?? []) {
      if (!ALIAS.test(alias)) throw new CatalogError(`model ${o.key}: alias "${alias}" is not a valid model name`);
      if (all.has(alias) || base.some((m) => m.key === alias))
        throw new CatalogError(`model ${o.key}: alias "${alias}" is the key of a catalog model`);
      const taken = aliases.get(alias);
      if (taken !== undefined && taken !== o.key)
        throw new CatalogError(`model ${o.key}: alias "${alias}" already names ${taken}`);
      aliases.set(alias, o.key);
    }
  }
  checkFallbacks(all);
  const byKey = new Map<string, ModelEntry>();
  for (const [key, m] of all) {
    if (disabled.has(key)) continue;
    // a disabled model is skipped as a fallback, like one without credentials
    const fallbacks = m.fallbacks.filter((f) => !disabled.has(f));
    byKey.set(key, fallbacks.length === m.fallbacks.length ? m : { ...m, fallbacks });
  }
  for (const [alias, key] of aliases) if (disabled.has(key)) aliases.delete(alias);
  return { byKey, disabled, aliases, overridden, overrides: byOverride };
}
