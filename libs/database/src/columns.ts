import { Column, ColumnOptions, getMetadataArgsStorage, ValueTransformer } from 'typeorm';
import type { ColumnMetadataArgs } from 'typeorm/metadata-args/ColumnMetadataArgs';

/**
 * bigint columns (µRUB amounts, epoch-millisecond timestamps) come back from pg as strings and from
 * better-sqlite3 as numbers; both are read as JS numbers (exact below 2^53, see libs/common money).
 * Timestamps are stored as epoch milliseconds in bigint columns so that one migration set runs
 * unchanged on Postgres and SQLite with no timezone conversion anywhere.
 */
export const bigintNumber: ValueTransformer = {
  to: (v: number | null | undefined) => v,
  from: (v: string | number | null) => (v === null || v === undefined ? v : Number(v)),
};

/**
 * Binary columns: `bytea` on Postgres, `blob` on SQLite — TypeORM has no type name both drivers
 * accept, and a decorator runs before the driver is known. `BinaryColumn` registers the column as
 * `blob` and remembers it; `bindBinaryColumns` (called by `dataSourceOptions`, i.e. before any data
 * source builds its metadata) sets the driver's name. The migrations create the column with the
 * same driver-dependent type (`binaryColumnType`).
 */
const binaryColumns: ColumnMetadataArgs[] = [];

export function BinaryColumn(options: Omit<ColumnOptions, 'type'> = {}): PropertyDecorator {
  return (target: object, propertyName: string | symbol) => {
    Column({ ...options, type: 'blob' })(target, propertyName);
    const args = getMetadataArgsStorage().columns.find(
      (c) => c.target === target.constructor && c.propertyName === propertyName,
    );
    if (args) binaryColumns.push(args);
  };
}

export function binaryColumnType(driver: string): 'bytea' | 'blob' {
  return driver === 'postgres' ? 'bytea' : 'blob';
}

export function bindBinaryColumns(driver: string): void {
  for (const args of binaryColumns) args.options.type = binaryColumnType(driver);
}
