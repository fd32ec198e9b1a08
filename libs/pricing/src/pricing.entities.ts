import { Column, Entity, PrimaryColumn } from 'typeorm';
import { bigintNumber } from '@app/database';

/** An operator's override of one catalog entry (JSON: CatalogOverride without the key). */
@Entity('catalog_overrides')
export class CatalogOverrideEntity {
  @PrimaryColumn({ name: 'model_key', type: 'varchar', length: 200 }) modelKey: string;
  @Column({ type: 'text' }) data: string;
  @Column({ name: 'updated_at', type: 'bigint', transformer: bigintNumber }) updatedAt: number;
}

/** A team's discount, markup and own model prices (JSON: TeamPricing). */
@Entity('team_pricing')
export class TeamPricingEntity {
  @PrimaryColumn({ name: 'team_id', type: 'varchar', length: 36 }) teamId: string;
  @Column({ type: 'text' }) data: string;
  @Column({ name: 'updated_at', type: 'bigint', transformer: bigintNumber }) updatedAt: number;
}

/** Moved by every catalog or team price change; each replica polls it and reloads when it moved. */
@Entity('pricing_versions')
export class PricingVersionEntity {
  @PrimaryColumn({ type: 'varchar', length: 16 }) id: string;
  @Column({ type: 'bigint', transformer: bigintNumber }) version: number;
}

export const PRICING_ENTITIES = [CatalogOverrideEntity, TeamPricingEntity, PricingVersionEntity];
