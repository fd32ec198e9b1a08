import { Column, Entity, PrimaryColumn } from 'typeorm';
import { bigintNumber } from '@app/database';

/** A team's data policy, as canonical JSON (policy.ts `DataPolicy`). No row: the open default. */
@Entity('team_data_policies')
export class TeamDataPolicyEntity {
  @PrimaryColumn({ name: 'team_id', type: 'varchar', length: 36 }) teamId: string;
  @Column({ type: 'text' }) policy: string;
  @Column({ name: 'updated_at', type: 'bigint', transformer: bigintNumber }) updatedAt: number;
}
