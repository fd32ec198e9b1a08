import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, IsNull, Repository } from 'typeorm';
import { TransactionRunner } from '@app/database';
import { RedemptionCodeEntity } from './entities/redemption-code.entity';

/** The redemption codes table. */
@Injectable()
export class RedemptionCodesRepository {
  constructor(
    @InjectRepository(RedemptionCodeEntity) private readonly codes: Repository<RedemptionCodeEntity>,
    private readonly tx: TransactionRunner,
  ) {}

  async insertMany(rows: RedemptionCodeEntity[]): Promise<void> {
    await this.tx.run(async (m) => {
      for (let i = 0; i < rows.length; i += 100) await m.insert(RedemptionCodeEntity, rows.slice(i, i + 100));
    });
  }

  findByHash(codeHash: string): Promise<RedemptionCodeEntity | null> {
    return this.codes.findOneBy({ codeHash });
  }

  findById(id: string): Promise<RedemptionCodeEntity | null> {
    return this.codes.findOneBy({ id });
  }

  /** The newest codes first (at most `limit`). */
  listNewest(limit: number): Promise<RedemptionCodeEntity[]> {
    return this.codes.find({ order: { createdAt: 'DESC', id: 'ASC' }, take: limit });
  }

  /** Disables an unused code; false when it was used (or disabled) meanwhile. */
  async disable(id: string, now: number): Promise<boolean> {
    const r = await this.codes.update({ id, usedAt: IsNull(), disabledAt: IsNull() }, { disabledAt: now });
    return (r.affected ?? 0) > 0;
  }

  /**
   * Inside the credit's transaction: marks the code used by the team, only if it is still usable
   * (unused, enabled, not expired). False: it is not, and the transaction must not commit.
   */
  async markUsedIn(m: EntityManager, id: string, teamId: string, userId: string | null, now: number): Promise<boolean> {
    const r = await m
      .createQueryBuilder()
      .update(RedemptionCodeEntity)
      .set({ usedAt: now, usedByTeam: teamId, usedByUser: userId })
      .where('id = :id AND used_at IS NULL AND disabled_at IS NULL AND (expires_at IS NULL OR expires_at > :now)', {
        id,
        now,
      })
      .execute();
    return (r.affected ?? 0) > 0;
  }
}
