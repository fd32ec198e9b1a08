import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { TeamRole } from '@app/auth';
import { bigintNumber } from '@app/database';

/** An invitation to join a team with a role: one use, expires, revocable. Only the token's SHA-256 is stored. */
@Entity('invitations')
export class InvitationEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 }) id: string;
  @Column({ name: 'team_id', type: 'varchar', length: 36 }) teamId: string;
  @Column({ type: 'varchar', length: 320 }) email: string;
  @Column({ type: 'varchar', length: 16 }) role: TeamRole;
  @Column({ name: 'token_hash', type: 'varchar', length: 64 }) tokenHash: string;
  @Column({ name: 'created_by', type: 'varchar', length: 36, nullable: true }) createdBy: string | null;
  @Column({ name: 'created_at', type: 'bigint', transformer: bigintNumber }) createdAt: number;
  @Column({ name: 'expires_at', type: 'bigint', transformer: bigintNumber }) expiresAt: number;
  @Column({ name: 'accepted_at', type: 'bigint', nullable: true, transformer: bigintNumber }) acceptedAt: number | null;
  @Column({ name: 'accepted_by', type: 'varchar', length: 36, nullable: true }) acceptedBy: string | null;
  @Column({ name: 'revoked_at', type: 'bigint', nullable: true, transformer: bigintNumber }) revokedAt: number | null;
}
