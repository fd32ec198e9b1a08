import { Injectable } from '@nestjs/common';
import { ApiError, Clock } from '@app/common';
import type { Actor } from '@app/accounts/audit';
import { FxService } from '@app/fx';
import {
  CatalogError,
  CatalogOverride,
  DeploymentSpec,
  ModelCatalogService,
  ModelEntry,
  ModelPricing,
} from '@app/providers';
import {
  AdminCatalogDto,
  AdminCatalogModelDto,
  AdminCatalogQueryDto,
  PutCatalogModelDto,
} from './dto/catalog-admin.dto';
import { PricingRepository } from './pricing.repository';
import { PricingSync } from './pricing-sync';
import { inRub } from './team-prices';

/** Admin price field → catalog pricing field; `nullable`: null means "no such price". */
const PRICE_FIELDS: Record<string, { field: keyof ModelPricing; nullable: boolean }> = {
  input_per_1m: { field: 'input_rub_per_1m', nullable: false },
  output_per_1m: { field: 'output_rub_per_1m', nullable: false },
  cache_read_per_1m: { field: 'cache_read_rub_per_1m', nullable: true },
  cache_write_per_1m: { field: 'cache_write_rub_per_1m', nullable: true },
  cache_write_1h_per_1m: { field: 'cache_write_1h_rub_per_1m', nullable: true },
  image: { field: 'image_rub', nullable: true },
  request: { field: 'request_rub', nullable: true },
};

const invalid = (message: string, param: string) => ApiError.badRequest(message, param, 'invalid_model_prices');

/** A price the operator sent: a finite number ≥ 0 (or null where allowed). */
export function checkPrice(v: unknown, param: string, nullable: boolean): number | null {
  if (v === null && nullable) return null;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw invalid(`${param} must be a number.`, param);
  if (v < 0) throw invalid(`${param} must not be negative.`, param);
  return v;
}

/**
 * The operators' catalog editor: the effective catalog (built-in + MODELS_FILE + database
 * overrides) with where each price comes from; an override per model (prices, currency, enabled,
 * aliases, fallbacks, deployments), validated like MODELS_FILE entries before it is stored, audit-logged, and
 * applied here at once and on the other replicas within CATALOG_REFRESH_MS.
 */
@Injectable()
export class CatalogAdminService {
  constructor(
    private readonly catalog: ModelCatalogService,
    private readonly repo: PricingRepository,
    private readonly sync: PricingSync,
    private readonly fx: FxService,
    private readonly clock: Clock,
  ) {}

  list(f: AdminCatalogQueryDto = {}): AdminCatalogDto {
    const q = f.q?.toLowerCase();
    const data = this.catalog
      .adminList()
      .filter(
        (m) =>
          (!q || [m.entry.key, m.entry.provider, ...m.aliases].some((s) => s.toLowerCase().includes(q))) &&
          (!f.kind || m.entry.kind === f.kind) &&
          (!f.provider || m.entry.provider === f.provider) &&
          (!f.source || m.source === f.source) &&
          (!f.currency || m.entry.currency === f.currency) &&
          (f.enabled === undefined || String(m.enabled) === f.enabled),
      );
    return { data: data.map((m) => this.view(m.entry, m.enabled, m.source, m.aliases, m.override)) };
  }

  one(key: string): AdminCatalogModelDto {
    const m = this.catalog.adminList().find((x) => x.entry.key === key);
    if (!m) throw notInCatalog(key);
    return this.view(m.entry, m.enabled, m.source, m.aliases, m.override);
  }

  async put(key: string, dto: PutCatalogModelDto, actor: Actor): Promise<AdminCatalogModelDto> {
    const base = this.catalog.baseEntry(key);
    if (!base) throw notInCatalog(key);
    const override = this.overrideOf(key, dto, base);
    const others = (await this.repo.overrides())
      .filter((o) => o.modelKey !== key)
      .map((o) => ({ ...(JSON.parse(o.data) as Omit<CatalogOverride, 'key'>), key: o.modelKey }));
    try {
      this.catalog.preview([...others, override]);
    } catch (err) {
      if (err instanceof CatalogError) throw invalid(err.message.replace(/^database override: ?/, ''), 'model');
      throw err;
    }
    const { key: _key, ...data } = override;
    await this.repo.putOverride(key, JSON.stringify(data), this.clock.now(), audit(actor, 'catalog.model.update', key));
    await this.sync.reload();
    return this.one(key);
  }

  async remove(key: string, actor: Actor): Promise<AdminCatalogModelDto> {
    if (!this.catalog.baseEntry(key)) throw notInCatalog(key);
    const changed = await this.repo.putOverride(key, null, this.clock.now(), audit(actor, 'catalog.model.reset', key));
    if (!changed)
      throw ApiError.notFound(`The model '${key}' has no database override.`, 'override_not_found', 'model');
    await this.sync.reload();
    return this.one(key);
  }

  private overrideOf(key: string, dto: PutCatalogModelDto, base: ModelEntry): CatalogOverride {
    const o: CatalogOverride = { key, enabled: dto.enabled ?? true };
    if (dto.currency) o.currency = dto.currency;
    if (dto.prices !== undefined) {
      if (dto.prices === null || typeof dto.prices !== 'object') throw invalid('prices must be an object.', 'prices');
      o.pricing = {};
      for (const [name, v] of Object.entries(dto.prices)) {
        if (v === undefined) continue; // left out (the DTO instance declares every price): it stays
        const spec = PRICE_FIELDS[name];
        if (!spec) throw ApiError.badRequest(`Unknown price "${name}".`, `prices.${name}`, 'unknown_parameter');
        o.pricing[spec.field] = checkPrice(v, `prices.${name}`, spec.nullable);
      }
    }
    if (dto.per_image !== undefined || dto.image_input_per_1m !== undefined) {
      if (base.kind !== 'image')
        throw invalid(`The model '${key}' is not an image model: per_image does not apply.`, 'per_image');
      o.image = {};
      if (dto.per_image !== undefined) {
        const table: Record<string, Record<string, number>> = {};
        for (const [size, row] of Object.entries(dto.per_image)) {
          if (!row || typeof row !== 'object')
            throw invalid(`per_image.${size} must be an object.`, `per_image.${size}`);
          table[size] = {};
          for (const [q, v] of Object.entries(row))
            table[size][q] = checkPrice(v, `per_image.${size}.${q}`, false) as number;
        }
        o.image.per_image_rub = table;
      }
      if (dto.image_input_per_1m !== undefined) o.image.image_input_rub_per_1m = dto.image_input_per_1m;
    }
    if (dto.aliases) o.aliases = [...new Set(dto.aliases)];
    if (dto.fallbacks) o.fallbacks = dto.fallbacks;
    if (dto.deployments !== undefined) o.deployments = deploymentsOf(dto.deployments, base);
    return o;
  }

  private view(
    m: ModelEntry,
    enabled: boolean,
    source: AdminCatalogModelDto['source'],
    aliases: string[],
    override: CatalogOverride | null,
  ): AdminCatalogModelDto {
    const quote = this.fx.current();
    const rub = m.currency === 'RUB' ? m : quote ? inRub(m, quote) : null;
    return {
      key: m.key,
      provider: m.provider,
      kind: m.kind,
      supports_images: m.supports_images,
      supports_tools: m.supports_tools,
      context_window: m.context_window,
      enabled,
      source,
      currency: m.currency,
      prices: pricingView(m.pricing),
      image: m.image ? { per_image: m.image.per_image_rub, image_input_per_1m: m.image.image_input_rub_per_1m } : null,
      rub_prices: rub ? pricingView(rub.pricing) : null,
      rub_image: rub?.image
        ? { per_image: rub.image.per_image_rub, image_input_per_1m: rub.image.image_input_rub_per_1m }
        : null,
      fx: rub?.fx ?? null,
      aliases,
      fallbacks: m.fallbacks,
      deployments: m.deployments,
      overridden_fields: override ? overriddenFields(override) : [],
      available: this.catalog.isAvailable(m),
    };
  }
}

/**
 * The deployments an operator sent, checked for what the editor may take: URLs and keys the host
 * already configured — a `base_url` the built-in / MODELS_FILE entry names, or environment variables
 * named `*_BASE_URL` / `*_API_KEY` — never a new URL for the provider's key. The rest (ids, weights,
 * URL shape, duplicates) is checked with the merged entry like MODELS_FILE.
 */
function deploymentsOf(v: unknown, base: ModelEntry): DeploymentSpec[] | null {
  if (v === null) return null;
  if (!Array.isArray(v) || v.length === 0)
    throw invalid('deployments must be a non-empty list (or null for the provider’s connection).', 'deployments');
  const knownUrls = new Set((base.deployments ?? []).map((d) => d.base_url).filter((u) => u !== null));
  return v.map((raw: unknown, i) => {
    const at = `deployments[${i}]`;
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw invalid(`${at} must be an object.`, at);
    const d = raw as Record<string, unknown>;
    const opt = (field: string): string | null => {
      const x = d[field];
      if (x === undefined || x === null || x === '') return null;
      if (typeof x !== 'string') throw invalid(`${at}.${field} must be a string.`, `${at}.${field}`);
      return x.trim();
    };
    const baseUrl = opt('base_url')?.replace(/\/+$/, '') ?? null;
    if (baseUrl !== null && !knownUrls.has(baseUrl))
      throw invalid(
        `${at}.base_url: the editor takes only the URLs MODELS_FILE gives for this model; name a *_BASE_URL environment variable in base_url_env.`,
        `${at}.base_url`,
      );
    const baseUrlEnv = opt('base_url_env');
    if (baseUrlEnv !== null && !/^[A-Z][A-Z0-9_]*_BASE_URL$/.test(baseUrlEnv))
      throw invalid(`${at}.base_url_env must be an environment variable named *_BASE_URL.`, `${at}.base_url_env`);
    const apiKeyEnv = opt('api_key_env');
    if (apiKeyEnv !== null && !/^[A-Z][A-Z0-9_]*_API_KEY$/.test(apiKeyEnv))
      throw invalid(`${at}.api_key_env must be an environment variable named *_API_KEY.`, `${at}.api_key_env`);
    const weight = d.weight === undefined ? 1 : d.weight;
    if (typeof weight !== 'number' || !Number.isFinite(weight) || weight <= 0)
      throw invalid(`${at}.weight must be a number > 0.`, `${at}.weight`);
    const id = opt('id') ?? `d${i}`;
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(id))
      throw invalid(`${at}.id must be letters, digits, ".", "_" or "-" (at most 64).`, `${at}.id`);
    return { id, base_url: baseUrl, base_url_env: baseUrlEnv, api_key_env: apiKeyEnv, weight };
  });
}

const pricingView = (p: ModelPricing) => ({
  ...p,
  cache_write_1h_rub_per_1m: p.cache_write_1h_rub_per_1m ?? null,
  request_rub: p.request_rub ?? null,
});

/** What an override changes, by the editor's field names (`prices.input_per_1m`, `per_image`, `aliases`, …). */
function overriddenFields(o: CatalogOverride): string[] {
  const out: string[] = [];
  if (!o.enabled) out.push('enabled');
  if (o.currency) out.push('currency');
  for (const [name, spec] of Object.entries(PRICE_FIELDS))
    if (o.pricing && spec.field in o.pricing) out.push(`prices.${name}`);
  if (o.image?.per_image_rub) out.push('per_image');
  if (o.image?.image_input_rub_per_1m !== undefined) out.push('image_input_per_1m');
  if (o.aliases?.length) out.push('aliases');
  if (o.fallbacks) out.push('fallbacks');
  if (o.deployments !== undefined) out.push('deployments');
  return out;
}

function notInCatalog(key: string): ApiError {
  return ApiError.notFound(
    `The model '${key}' is not in the built-in catalog or MODELS_FILE.`,
    'model_not_found',
    'model',
  );
}

function audit(actor: Actor, action: string, key: string) {
  return { actor, teamId: null, action, targetType: 'model', targetId: key };
}
