import { closeSync, fsync, mkdirSync, openSync, readdirSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { newId } from '@app/common';
import type { ChargeRecord } from './billing.repository';

/** One charge applied in memory against a credit grant and not yet known to be in the database. */
export interface JournalCharge {
  grantId: string;
  holdId: string;
  teamId: string;
  actualMicro: number;
  charge: ChargeRecord;
  at: number;
}

/** Journal instances alive in this process (several applications may share one process). */
const LIVE = new Set<string>();
const PREFIX = 'journal-';
/** a segment is closed and a new one started past this size (the old one goes once its charges are written) */
const SEGMENT_BYTES = 4 * 1024 * 1024;
const fsyncFd = promisify(fsync);

/**
 * The replica's journal of batched charges (BILLING_DURABILITY=batched): every charge applied in
 * memory is appended here before its answer leaves — one write() into the page cache, no fsync on
 * the request's path — and the file is fsync'ed at every flush, on libuv's thread pool: a flush of
 * the disk takes milliseconds, and longer on a busy disk, which the event loop and the requests it
 * serves must not wait for. The deletion of written segments is off the loop for the same reason.
 * So a killed process (SIGKILL, OOM kill) loses nothing: the kernel still writes what it was given;
 * only a machine crash can lose the charges since the last flush. Segments whose charges all reached the database are deleted.
 *
 * Files: `<spool dir>/journal-<pid>-<instance>-<n>.ndjson`. A journal whose process is gone is read
 * back by `orphans()` (by any replica sharing the directory, normally the same replica restarted).
 */
export class ChargeJournal {
  /** no dashes: the file name's fields are separated by them */
  private readonly instance = newId().replace(/-/g, '');
  private segment = 0;
  private fd: number | null = null;
  private bytes = 0;
  /** segments written before the current one, waiting for their charges to be in the database */
  private closed: string[] = [];

  constructor(private readonly dir: string) {
    LIVE.add(this.instance);
  }

  private fileOf(segment: number): string {
    return join(this.dir, `${PREFIX}${process.pid}-${this.instance}-${segment}.ndjson`);
  }

  /** Appends one charge (no fsync: survives the process, not the machine, until the next `sync`). */
  append(c: JournalCharge): void {
    if (this.fd === null) {
      mkdirSync(this.dir, { recursive: true });
      this.fd = openSync(this.fileOf(this.segment), 'a');
      this.bytes = 0;
    }
    this.bytes += writeSync(this.fd, `${JSON.stringify(c)}\n`);
  }

  /** A flush takes every charge appended so far: a large segment is closed first, so it can go after. */
  rotate(): void {
    if (this.fd === null || this.bytes < SEGMENT_BYTES) return;
    closeSync(this.fd);
    this.fd = null;
    this.closed.push(this.fileOf(this.segment++));
  }

  /**
   * Everything appended so far is on the disk. Appends made while it runs go into the same file
   * (and may or may not be covered); the caller (one flush at a time) never closes the file meanwhile.
   */
  async sync(): Promise<void> {
    if (this.fd !== null) await fsyncFd(this.fd);
  }

  /**
   * The charges of the closed segments, and of the current one when `all`, are in the database (or
   * in the durable spool): their files go. The current file is closed at once, so a charge appended
   * while the files are being deleted starts a new segment.
   */
  async written(all: boolean): Promise<void> {
    const gone = this.closed;
    this.closed = [];
    if (all && this.fd !== null) {
      closeSync(this.fd);
      this.fd = null;
      gone.push(this.fileOf(this.segment++));
    }
    await Promise.all(gone.map((f) => unlink(f)));
  }

  /** Shutdown after the last flush: nothing of this journal is needed any more. */
  async close(): Promise<void> {
    await this.written(true);
    LIVE.delete(this.instance);
  }

  /**
   * Journals of processes that are gone (killed before their last flush), each with its charges. A
   * process counts as gone when no process has its pid, or when it had this process's pid (a
   * restarted container) and is not one of its live journals.
   */
  static orphans(dir: string): { file: string; charges: JournalCharge[] }[] {
    let names: string[];
    try {
      names = readdirSync(dir).filter((n) => n.startsWith(PREFIX) && n.endsWith('.ndjson'));
    } catch {
      return [];
    }
    const out: { file: string; charges: JournalCharge[] }[] = [];
    for (const name of names) {
      const [pid, instance, segment, ...rest] = name.slice(PREFIX.length, -'.ndjson'.length).split('-');
      if (segment === undefined || rest.length) continue; // not a journal of ours
      if (!gone(Number(pid), instance)) continue;
      const file = join(dir, name);
      const charges = readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => l.trim() !== '')
        .flatMap((l) => {
          try {
            return [JSON.parse(l) as JournalCharge];
          } catch {
            return []; // a line cut by the kill: its charge never got its answer out either
          }
        });
      out.push({ file, charges });
    }
    return out;
  }

  static remove(file: string): void {
    try {
      unlinkSync(file);
    } catch {
      /* another replica reconciled it first */
    }
  }
}

function gone(pid: number, instance: string | undefined): boolean {
  if (!Number.isInteger(pid) || !instance) return false;
  if (pid === process.pid) return !LIVE.has(instance);
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
