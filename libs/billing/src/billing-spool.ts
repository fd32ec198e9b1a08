import {
  appendFileSync,
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  writeSync,
} from 'node:fs';
import { createHash } from 'node:crypto';
import { join, resolve } from 'node:path';
import { AppConfig } from '@app/config';
import type { ChargeRecord } from './billing.repository';
import type { JournalCharge } from './charge-journal';

/** A settle or release the database could not take when it happened. */
export type SpoolRecord =
  | { op: 'settle'; reservationId: string; actualMicro: number; charge: ChargeRecord; at: number }
  | { op: 'release'; reservationId: string; at: number }
  | ({ op: 'charge' } & JournalCharge);

/**
 * The durable outbox of billing writes: one JSON line per record, appended and fsync'ed before the
 * caller goes on, so a charge survives a database outage and a restart of this replica. Replayed
 * in order; the repository's writes are idempotent per reservation, so a record applied twice
 * charges once. Records the database refuses for good go to `rejected.ndjson` for an operator.
 */
export class BillingSpool {
  private readonly file: string;
  private readonly rejected: string;

  constructor(readonly dir: string) {
    this.file = join(dir, 'pending.ndjson');
    this.rejected = join(dir, 'rejected.ndjson');
  }

  /**
   * The spool of a configuration: `DATA_DIR/billing-spool/<db>`, one per database (a data dir may
   * serve several, e.g. tests against several Postgres schemas) — `sqlite`, or a hash of the
   * Postgres URL and schema.
   */
  static forConfig(config: AppConfig): BillingSpool {
    const key =
      config.databaseKind === 'postgres'
        ? createHash('sha256')
            .update(`${config.databaseUrl}|${config.databaseSchema ?? ''}`)
            .digest('hex')
            .slice(0, 16)
        : 'sqlite';
    return new BillingSpool(join(resolve(config.dataDir), 'billing-spool', key));
  }

  append(record: SpoolRecord): void {
    mkdirSync(this.dir, { recursive: true });
    const fd = openSync(this.file, 'a');
    try {
      writeSync(fd, `${JSON.stringify(record)}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }

  read(): SpoolRecord[] {
    if (!existsSync(this.file)) return [];
    return readFileSync(this.file, 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as SpoolRecord);
  }

  /** Drops the first `count` records (the ones replayed); records appended meanwhile stay. */
  drop(count: number): void {
    if (count <= 0) return;
    const rest = this.read().slice(count);
    const tmp = `${this.file}.tmp`;
    const fd = openSync(tmp, 'w');
    try {
      writeSync(fd, rest.map((r) => `${JSON.stringify(r)}\n`).join(''));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, this.file);
  }

  reject(record: SpoolRecord, reason: string): void {
    mkdirSync(this.dir, { recursive: true });
    appendFileSync(this.rejected, `${JSON.stringify({ ...record, reason })}\n`);
  }

  get pending(): number {
    return this.read().length;
  }
}
