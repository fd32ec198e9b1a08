import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { TeamRole } from '@app/auth';
import { bigintNumber } from '@app/database';

/** A user's role in a team. */
@Entity('memberships')
export class MembershipEntity {
  @PrimaryColumn({ name: 'team_id', type: 'varchar', length: 36 }) teamId: string;
  @PrimaryColumn({ name: 'user_id', type: 'varchar', length: 36 }) userId: string;
  @Column({ type: 'varchar', length: 16 }) role: TeamRole;
  @Column({ name: 'created_at', type: 'bigint', transformer: bigintNumber }) createdAt: number;
}
