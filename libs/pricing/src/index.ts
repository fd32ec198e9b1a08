export { PricingModule } from './pricing.module';
export { forTeam, inRub, mapPrices, type TeamPricing, type TeamModelPrices } from './team-prices';
