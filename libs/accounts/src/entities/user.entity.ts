import { Column, Entity, PrimaryColumn } from 'typeorm';
import { bigintNumber } from '@app/database';

/** 0/1 integer columns read as booleans (one column type on both drivers). */
export const intBoolean = {
  to: (v: boolean | undefined) => (v === undefined ? v : v ? 1 : 0),
  from: (v: number | string | null) => Number(v) === 1,
};

/** A person. The e-mail is stored lower-case (unique); the password as an scrypt hash (null: SSO only). */
@Entity('users')
export class UserEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 }) id: string;
  @Column({ type: 'varchar', length: 320 }) email: string;
  @Column({ type: 'varchar', length: 200 }) name: string;
  @Column({ name: 'password_hash', type: 'varchar', length: 255, nullable: true }) passwordHash: string | null;
  @Column({ type: 'integer', default: 0, transformer: intBoolean }) operator: boolean;
  @Column({ type: 'integer', default: 0, transformer: intBoolean }) disabled: boolean;
  @Column({ name: 'created_at', type: 'bigint', transformer: bigintNumber }) createdAt: number;
  @Column({ name: 'last_login_at', type: 'bigint', nullable: true, transformer: bigintNumber }) lastLoginAt:
    number | null;
}
