import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { BinaryColumn, bigintNumber } from '@app/database';

/**
 * An uploaded file (OpenAI Files API; knowledge-base documents and links are files too). The bytes
 * live in the database so that every replica serves them. `seq` orders pages; `id` is public.
 */
@Entity('files')
export class StoredFileEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' }) seq: number | string;
  @Column({ type: 'varchar', length: 40, unique: true }) id: string;
  @Column({ name: 'team_id', type: 'varchar', length: 36 }) teamId: string;
  @Column({ type: 'varchar', length: 255 }) filename: string;
  @Column({ type: 'varchar', length: 32 }) purpose: string;
  @Column({ type: 'varchar', length: 100 }) mime: string;
  @Column({ name: 'byte_size', type: 'integer' }) byteSize: number;
  @Column({ type: 'varchar', length: 64 }) sha256: string;
  /** the bytes: here when `parts` is 0, else in that many FilePartEntity rows (this column empty) */
  @BinaryColumn({ select: false }) bytes: Buffer;
  @Column({ type: 'integer', default: 0 }) parts?: number;
  @Column({ name: 'created_at', type: 'bigint', transformer: bigintNumber }) createdAt: number;
}
