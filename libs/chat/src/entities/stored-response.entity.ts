import { Column, Entity, PrimaryColumn } from 'typeorm';
import { bigintNumber } from '@app/database';

/** A /v1/responses answer kept for GET, input_items and previous_response_id (until expiresAt). */
@Entity('stored_responses')
export class StoredResponseEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 }) id: string;
  @Column({ name: 'team_id', type: 'varchar', length: 36 }) teamId: string;
  @Column({ name: 'created_at', type: 'bigint', transformer: bigintNumber }) createdAt: number;
  @Column({ name: 'expires_at', type: 'bigint', transformer: bigintNumber }) expiresAt: number;
  /** JSON: the response object */
  @Column({ type: 'text' }) body: string;
  /** JSON: the input items, with ids */
  @Column({ name: 'input_items', type: 'text' }) inputItems: string;
  /** JSON: canonical messages up to and including this answer */
  @Column({ type: 'text' }) conversation: string;
}
