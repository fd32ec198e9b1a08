import { Column, Entity, PrimaryColumn } from 'typeorm';
import { bigintNumber } from '@app/database';

/**
 * What a key with a budget spent (settled charges) and holds (open reservations) in one UTC period
 * ('d:2026-11-23' or 'm:2026-11'). A reservation against a budget raises held_micro under the
 * condition spent + held + amount <= cap, in the same transaction as the team hold; settle moves the
 * hold to spent, release drops it. Seeded from the ledger the first time a period is used.
 */
@Entity('api_key_spend')
export class ApiKeySpendEntity {
  @PrimaryColumn({ name: 'api_key_id', type: 'varchar', length: 36 }) apiKeyId: string;
  @PrimaryColumn({ type: 'varchar', length: 16 }) period: string;
  @Column({ name: 'spent_micro', type: 'bigint', transformer: bigintNumber }) spentMicro: number;
  @Column({ name: 'held_micro', type: 'bigint', transformer: bigintNumber }) heldMicro: number;
}
