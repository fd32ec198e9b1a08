import { Injectable } from '@nestjs/common';
import { ApiError, Clock } from '@app/common';
import type { Actor } from '@app/accounts/audit';
import { ModelCatalogService } from '@app/providers';
import { checkPrice } from './catalog-admin.service';
import { PutTeamPricingDto, TeamPricingDto } from './dto/team-pricing.dto';
import { PricingRepository } from './pricing.repository';
import { PricingSync } from './pricing-sync';
import type { TeamModelPrices, TeamPricing } from './team-prices';

const MODEL_FIELDS: (keyof TeamModelPrices)[] = [
  'input_per_1m_rub',
  'output_per_1m_rub',
  'cache_read_per_1m_rub',
  'cache_write_per_1m_rub',
  'cache_write_1h_per_1m_rub',
  'image_rub',
  'request_rub',
];

/** A fee per call is charged in whole µRUB: more than 6 decimals could not be charged as set. */
const hasAtMost6Decimals = (v: number) => Number(v.toFixed(6)) === v;

const NONE: TeamPricing = { discount_percent: 0, markup_percent: 0, models: {} };

/** Per-team prices: a discount or markup on the catalog, and the team's own prices for some models. */
@Injectable()
export class TeamPricingService {
  constructor(
    private readonly repo: PricingRepository,
    private readonly sync: PricingSync,
    private readonly catalog: ModelCatalogService,
    private readonly clock: Clock,
  ) {}

  async get(teamId: string): Promise<TeamPricingDto> {
    await this.assertTeam(teamId);
    const row = await this.repo.oneTeam(teamId);
    return this.view(teamId, row ? (JSON.parse(row.data) as TeamPricing) : NONE, row?.updatedAt ?? null);
  }

  async put(teamId: string, dto: PutTeamPricingDto, actor: Actor): Promise<TeamPricingDto> {
    await this.assertTeam(teamId);
    const models: Record<string, TeamModelPrices> = {};
    for (const [key, prices] of Object.entries(dto.models ?? {})) {
      const param = `models.${key}`;
      if (!this.catalog.baseEntry(key))
        throw ApiError.badRequest(`The model '${key}' is not in the catalog.`, param, 'model_not_found');
      if (!prices || typeof prices !== 'object' || Array.isArray(prices))
        throw ApiError.badRequest(`${param} must be an object of prices.`, param, 'invalid_team_pricing');
      const own: TeamModelPrices = {};
      for (const [name, v] of Object.entries(prices)) {
        const field = name as keyof TeamModelPrices;
        if (!MODEL_FIELDS.includes(field))
          throw ApiError.badRequest(`Unknown price "${name}".`, `${param}.${name}`, 'unknown_parameter');
        // the fee per call: null is the same as left out (the catalog's fee, scaled); 0 is no fee
        // (docs/decisions/request-fee-per-team-and-tool-loops.md)
        const price = checkPrice(v, `${param}.${name}`, field === 'request_rub');
        if (price === null) continue;
        if (field === 'request_rub' && !hasAtMost6Decimals(price))
          throw ApiError.badRequest(
            `${param}.${name} must have at most 6 decimals.`,
            `${param}.${name}`,
            'invalid_model_prices',
          );
        own[field] = price;
      }
      models[key] = own;
    }
    const pricing: TeamPricing = {
      discount_percent: dto.discount_percent ?? 0,
      markup_percent: dto.markup_percent ?? 0,
      models,
    };
    const now = this.clock.now();
    await this.repo.putTeam(teamId, JSON.stringify(pricing), now, {
      actor,
      teamId,
      action: 'team.pricing.update',
      targetType: 'team',
      targetId: teamId,
    });
    await this.sync.reload();
    return this.view(teamId, pricing, now);
  }

  private async assertTeam(teamId: string): Promise<void> {
    if (!(await this.repo.teamExists(teamId))) throw ApiError.notFound(`Team ${teamId} not found.`, 'team_not_found');
  }

  private view(teamId: string, p: TeamPricing, updatedAt: number | null): TeamPricingDto {
    return {
      team_id: teamId,
      discount_percent: p.discount_percent,
      markup_percent: p.markup_percent,
      models: p.models,
      updated_at: updatedAt === null ? null : new Date(updatedAt).toISOString(),
      prices: this.catalog.list().map((m) => {
        const priced = this.catalog.pricedOrNull(m, teamId);
        return {
          model: m.key,
          pricing: priced
            ? { ...priced.pricing, cache_write_1h_rub_per_1m: priced.pricing.cache_write_1h_rub_per_1m ?? null }
            : null,
          per_image_rub: priced?.image?.per_image_rub ?? null,
          fx: priced?.fx ?? null,
        };
      }),
    };
  }
}
