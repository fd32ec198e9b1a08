import { Column, Entity, PrimaryColumn } from 'typeorm';
import { BinaryColumn, bigintNumber } from '@app/database';

/** A generated image kept for `response_format: "url"`; served only through a signed, expiring link. */
@Entity('image_files')
export class ImageFileEntity {
  @PrimaryColumn({ type: 'varchar', length: 40 }) id: string;
  @Column({ name: 'team_id', type: 'varchar', length: 36 }) teamId: string;
  @Column({ type: 'varchar', length: 40 }) mime: string;
  @Column({ name: 'byte_size', type: 'integer' }) byteSize: number;
  @BinaryColumn() bytes: Buffer;
  @Column({ name: 'created_at', type: 'bigint', transformer: bigintNumber }) createdAt: number;
  @Column({ name: 'expires_at', type: 'bigint', transformer: bigintNumber }) expiresAt: number;
}

/** Per-deployment secrets generated once and shared by every replica through the database. */
@Entity('gateway_secrets')
export class GatewaySecretEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 }) name: string;
  @Column({ type: 'varchar', length: 128 }) value: string;
  @Column({ name: 'created_at', type: 'bigint', transformer: bigintNumber }) createdAt: number;
}
