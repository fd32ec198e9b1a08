import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, IsNull } from 'typeorm';
import { isUniqueViolation } from '@app/billing/billing.repository';
import { FxRateEntity, FxStatusEntity } from './fx.entities';

/** The stored CBR rates (one row per currency and date) and the fetcher's status row, shared by the replicas. */
@Injectable()
export class FxRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** The newest stored rates of a currency, newest first. */
  recent(currency: string, take: number): Promise<FxRateEntity[]> {
    return this.ds.getRepository(FxRateEntity).find({ where: { currency }, order: { rateDate: 'DESC' }, take });
  }

  status(currency: string): Promise<FxStatusEntity | null> {
    return this.ds.getRepository(FxStatusEntity).findOneBy({ currency });
  }

  /** Stores a day's rate once: a day already stored (by this replica or another) is left as it is. */
  async insertRate(row: FxRateEntity): Promise<void> {
    const repo = this.ds.getRepository(FxRateEntity);
    if (await repo.findOneBy({ currency: row.currency, rateDate: row.rateDate })) return;
    try {
      await repo.insert(row);
    } catch (err) {
      // another replica stored the same day's rate first
      if (!isUniqueViolation(err)) throw err;
    }
  }

  /** Merges a patch into the currency's status row, creating it when absent. */
  async saveStatus(currency: string, patch: Partial<FxStatusEntity>): Promise<void> {
    const repo = this.ds.getRepository(FxStatusEntity);
    const row = (await repo.findOneBy({ currency })) ?? {
      currency,
      lastAttemptAt: null,
      lastSuccessAt: null,
      lastError: null,
      alertRaisedAt: null,
    };
    await repo.save({ ...row, ...patch });
  }

  /** Marks the stale alert raised unless it already is; true for the one caller (of all replicas) that raised it. */
  async raiseAlert(currency: string, at: number): Promise<boolean> {
    if (!(await this.status(currency))) await this.saveStatus(currency, {});
    const res = await this.ds
      .getRepository(FxStatusEntity)
      .update({ currency, alertRaisedAt: IsNull() }, { alertRaisedAt: at });
    return !!res.affected;
  }
}
