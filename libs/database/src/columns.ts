import { ValueTransformer } from 'typeorm';

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
