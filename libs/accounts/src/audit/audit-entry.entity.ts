import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { bigintNumber } from '@app/database';

/** One state change, append-only. `diff` is JSON {before, after} with secrets redacted. */
@Entity('audit_log')
export class AuditEntryEntity {
  /** bigint: pg returns it as a string, SQLite as a number */
  @PrimaryGeneratedColumn({ type: 'bigint' }) seq: number | string;
  @Column({ type: 'varchar', length: 36 }) id: string;
  @Column({ type: 'bigint', transformer: bigintNumber }) at: number;
  /** user | operator_token | cli | system | anonymous */
  @Column({ name: 'actor_type', type: 'varchar', length: 16 }) actorType: string;
  /** user id (or, for a failed login, the e-mail tried) */
  @Column({ name: 'actor_id', type: 'varchar', length: 320, nullable: true }) actorId: string | null;
  @Column({ type: 'varchar', length: 64, nullable: true }) ip: string | null;
  @Column({ name: 'user_agent', type: 'varchar', length: 500, nullable: true }) userAgent: string | null;
  @Column({ name: 'team_id', type: 'varchar', length: 36, nullable: true }) teamId: string | null;
  @Column({ type: 'varchar', length: 64 }) action: string;
  @Column({ name: 'target_type', type: 'varchar', length: 32, nullable: true }) targetType: string | null;
  @Column({ name: 'target_id', type: 'varchar', length: 320, nullable: true }) targetId: string | null;
  @Column({ type: 'text', nullable: true }) diff: string | null;
}
