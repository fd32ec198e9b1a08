import { Column, Entity, PrimaryColumn } from 'typeorm';
import { bigintNumber } from '@app/database';

/** A signed-in session. Only the SHA-256 of the cookie value is stored; `id` is what lists and revocation use. */
@Entity('sessions')
export class SessionEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 }) id: string;
  @Column({ name: 'token_hash', type: 'varchar', length: 64 }) tokenHash: string;
  @Column({ name: 'user_id', type: 'varchar', length: 36 }) userId: string;
  @Column({ name: 'csrf_token', type: 'varchar', length: 64 }) csrfToken: string;
  /** how the session was opened: password | oidc | invitation */
  @Column({ type: 'varchar', length: 16 }) via: string;
  @Column({ type: 'varchar', length: 64, nullable: true }) ip: string | null;
  @Column({ name: 'user_agent', type: 'varchar', length: 500, nullable: true }) userAgent: string | null;
  @Column({ name: 'created_at', type: 'bigint', transformer: bigintNumber }) createdAt: number;
  @Column({ name: 'last_seen_at', type: 'bigint', transformer: bigintNumber }) lastSeenAt: number;
  /** absolute end of the session, whatever its activity */
  @Column({ name: 'expires_at', type: 'bigint', transformer: bigintNumber }) expiresAt: number;
}
