import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { TransactionRunner } from '@app/database';
import { AuditRecord, AuditTrail } from '@app/accounts/audit';
import { TeamEntity } from '@app/billing/entities/team.entity';
import { CatalogOverrideEntity, PricingVersionEntity, TeamPricingEntity } from './pricing.entities';

const VERSION_ID = 'pricing';
type Audit = Omit<AuditRecord, 'before' | 'after'>;

/**
 * Catalog overrides and team prices. Every change is written with its audit record and a move of
 * the version row in one transaction, so a replica that sees the new version reads the change.
 */
@Injectable()
export class PricingRepository {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly tx: TransactionRunner,
    private readonly audit: AuditTrail,
  ) {}

  async version(): Promise<number> {
    const row = await this.ds.getRepository(PricingVersionEntity).findOneBy({ id: VERSION_ID });
    return row?.version ?? 0;
  }

  overrides(): Promise<CatalogOverrideEntity[]> {
    return this.ds.getRepository(CatalogOverrideEntity).find();
  }

  teamPricing(): Promise<TeamPricingEntity[]> {
    return this.ds.getRepository(TeamPricingEntity).find();
  }

  oneTeam(teamId: string): Promise<TeamPricingEntity | null> {
    return this.ds.getRepository(TeamPricingEntity).findOneBy({ teamId });
  }

  /** Stores (data) or drops (null) a model's override; `before` of the audit record is the previous one. */
  putOverride(key: string, data: string | null, now: number, audit: Audit): Promise<boolean> {
    return this.change(now, audit, async (m) => {
      const before = await m.findOneBy(CatalogOverrideEntity, { modelKey: key });
      if (data === null) {
        if (before) await m.delete(CatalogOverrideEntity, { modelKey: key });
      } else await m.save(CatalogOverrideEntity, { modelKey: key, data, updatedAt: now });
      return {
        before: before ? JSON.parse(before.data) : null,
        after: data === null ? null : JSON.parse(data),
        changed: !!before || data !== null,
      };
    });
  }

  putTeam(teamId: string, data: string, now: number, audit: Audit): Promise<boolean> {
    return this.change(now, audit, async (m) => {
      const before = await m.findOneBy(TeamPricingEntity, { teamId });
      await m.save(TeamPricingEntity, { teamId, data, updatedAt: now });
      return { before: before ? JSON.parse(before.data) : null, after: JSON.parse(data), changed: true };
    });
  }

  private change(
    now: number,
    audit: Audit,
    write: (m: EntityManager) => Promise<{ before: unknown; after: unknown; changed: boolean }>,
  ): Promise<boolean> {
    return this.tx.run(async (m) => {
      const { before, after, changed } = await write(m);
      if (!changed) return false;
      await this.audit.writeIn(m, { ...audit, before, after }, now);
      await m
        .createQueryBuilder()
        .update(PricingVersionEntity)
        .set({ version: () => 'version + 1' })
        .where('id = :id', { id: VERSION_ID })
        .execute();
      return true;
    });
  }

  teamExists(teamId: string): Promise<boolean> {
    return this.ds.getRepository(TeamEntity).existsBy({ id: teamId });
  }
}
