import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '@app/accounts/audit';
import { AuthModule } from '@app/auth';
import { FxModule } from '@app/fx';
import { ProvidersModule } from '@app/providers';
import { CatalogAdminService } from './catalog-admin.service';
import { PriceResolver } from './price-resolver';
import { PricingAdminController } from './pricing-admin.controller';
import { PRICING_ENTITIES } from './pricing.entities';
import { PricingRepository } from './pricing.repository';
import { PricingSync } from './pricing-sync';
import { TeamPricingService } from './team-pricing.service';

/**
 * Prices: the operators' catalog overrides and per-team prices (stored, audit-logged, polled by
 * every replica) and the catalog's pricer (USD entries at the CBR rate, team prices applied).
 */
@Module({
  imports: [TypeOrmModule.forFeature(PRICING_ENTITIES), AuthModule, AuditModule, FxModule, ProvidersModule],
  controllers: [PricingAdminController],
  providers: [PricingRepository, PriceResolver, PricingSync, CatalogAdminService, TeamPricingService],
  exports: [],
})
export class PricingModule {}
