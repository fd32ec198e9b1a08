import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { TransactionRunner } from '@app/database';
import { AuditRecord, AuditTrail } from '@app/accounts/audit';
import { TeamDataPolicyEntity } from './entities/team-data-policy.entity';

/** The teams' data policies: one row per team, written with its audit record in one transaction. */
@Injectable()
export class DataPolicyRepository {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly tx: TransactionRunner,
    private readonly audit: AuditTrail,
  ) {}

  find(teamId: string): Promise<TeamDataPolicyEntity | null> {
    return this.ds.getRepository(TeamDataPolicyEntity).findOneBy({ teamId });
  }

  put(teamId: string, policy: string, now: number, audit: Omit<AuditRecord, 'before' | 'after'>): Promise<void> {
    return this.tx.run(async (m) => {
      const before = await m.findOneBy(TeamDataPolicyEntity, { teamId });
      await m.save(TeamDataPolicyEntity, { teamId, policy, updatedAt: now });
      await this.audit.writeIn(
        m,
        { ...audit, before: before ? JSON.parse(before.policy) : null, after: JSON.parse(policy) },
        now,
      );
    });
  }
}
