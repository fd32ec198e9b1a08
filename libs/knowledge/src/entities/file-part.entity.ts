import { Column, Entity, PrimaryColumn } from 'typeorm';
import { BinaryColumn, bigintNumber } from '@app/database';

/** One part of a large file's bytes (see FilesRepository): `ordinal` 0, 1, … in order. */
@Entity('file_parts')
export class FilePartEntity {
  @PrimaryColumn({ name: 'file_id', type: 'varchar', length: 40 }) fileId: string;
  @PrimaryColumn({ type: 'integer' }) ordinal: number;
  @BinaryColumn() bytes: Buffer;
  @Column({ name: 'created_at', type: 'bigint', transformer: bigintNumber }) createdAt: number;
}
