import { randomBytes } from 'node:crypto';
import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, LessThan, Repository } from 'typeorm';
import { Clock } from '@app/common';
import { ChangeRecorder, TransactionRunner } from '@app/database';
import { FilePartEntity } from './entities/file-part.entity';
import { StoredFileEntity } from './entities/stored-file.entity';

export type FileRow = Omit<StoredFileEntity, 'bytes'>;

/**
 * A file larger than this is stored in parts of this size (`file_parts`), each written and read by a
 * statement — and on SQLite a commit — of its own, the event loop free between them: one 10 MB
 * BLOB `INSERT` and its `COMMIT` held every other request of an embedded gateway for ≈ 90 ms each.
 */
export const FILE_PART_BYTES = 1024 * 1024;

/** Parts older than this without their file are what an interrupted store left behind. */
const ORPHAN_PARTS_AFTER_MS = 60 * 60 * 1000;

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

export interface FileListQuery {
  after?: string;
  limit: number;
  order: 'asc' | 'desc';
  purpose?: string;
}

@Injectable()
export class FilesRepository implements OnApplicationBootstrap {
  private readonly logger = new Logger(FilesRepository.name);

  constructor(
    @InjectRepository(StoredFileEntity) private readonly files: Repository<StoredFileEntity>,
    @InjectRepository(FilePartEntity) private readonly parts: Repository<FilePartEntity>,
    private readonly tx: TransactionRunner,
    private readonly audit: ChangeRecorder,
    private readonly clock: Clock,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const removed = await this.purgeOrphanParts().catch(() => 0);
    if (removed > 0) this.logger.warn(`removed ${removed} parts of files whose storing was interrupted`);
  }

  /**
   * Stores the file and its audit record (name, purpose, size and digest: never the content). A
   * small file is one transaction; a large one writes its parts first, one transaction each, and
   * then the file's row and audit record in one — the file exists only once all its bytes do.
   */
  async insert(row: Omit<StoredFileEntity, 'seq'>): Promise<void> {
    const parts = await this.writeParts(row.id, row.bytes);
    try {
      await this.tx.run(async (m) => {
        await m.insert(StoredFileEntity, { ...row, ...stored(row.bytes, parts) });
        await this.record(m, 'file.create', row, false);
      });
    } catch (err) {
      if (parts > 0) await this.parts.delete({ fileId: row.id }).catch(() => undefined);
      throw err;
    }
  }

  /** Writes `bytes` as parts of file `id` when they are larger than one part; answers how many (0: none). */
  private async writeParts(id: string, bytes: Buffer): Promise<number> {
    if (bytes.length <= FILE_PART_BYTES) return 0;
    const count = Math.ceil(bytes.length / FILE_PART_BYTES);
    const createdAt = this.clock.now();
    for (let ordinal = 0; ordinal < count; ordinal++) {
      await turn();
      const part = bytes.subarray(ordinal * FILE_PART_BYTES, (ordinal + 1) * FILE_PART_BYTES);
      await this.parts.insert({ fileId: id, ordinal, bytes: part, createdAt });
    }
    return count;
  }

  /** Removes parts that no file owns, left by a store that was interrupted (older than an hour). */
  async purgeOrphanParts(): Promise<number> {
    const old = await this.parts
      .createQueryBuilder('p')
      .select('DISTINCT p.file_id', 'file_id')
      .where({ createdAt: LessThan(this.clock.now() - ORPHAN_PARTS_AFTER_MS) })
      .andWhere(`NOT EXISTS (SELECT 1 FROM ${this.files.metadata.tablePath} f WHERE f.id = p.file_id)`)
      .getRawMany<{ file_id: string }>();
    let removed = 0;
    for (const { file_id } of old) removed += (await this.parts.delete({ fileId: file_id })).affected ?? 0;
    return removed;
  }

  /** The team's file, or null (another team's id is the same as an unknown one). */
  findOwned(teamId: string, id: string): Promise<FileRow | null> {
    return this.files.findOneBy({ teamId, id });
  }

  async content(teamId: string, id: string): Promise<Buffer | null> {
    // one read: the bytes themselves, or (a file in parts) an empty column and the count of parts
    const row = await this.files
      .createQueryBuilder('f')
      .addSelect('f.bytes')
      .where('f.team_id = :teamId AND f.id = :id', { teamId, id })
      .getOne();
    if (!row) return null;
    if (!row.parts) return Buffer.from(row.bytes);
    // part by part, the event loop free between them
    const chunks: Buffer[] = [];
    const count = row.parts;
    for (let ordinal = 0; ordinal < count; ordinal++) {
      await turn();
      const part = await this.parts.findOneBy({ fileId: id, ordinal });
      if (!part) throw new Error(`file ${id} is missing part ${ordinal} of ${count}`);
      chunks.push(Buffer.from(part.bytes));
    }
    return Buffer.concat(chunks);
  }

  /** One page, newest first (or oldest first), after the cursor file; limit + 1 rows tell has_more. */
  async list(teamId: string, q: FileListQuery): Promise<FileRow[]> {
    const qb = this.files.createQueryBuilder('f').where('f.team_id = :teamId', { teamId });
    if (q.purpose) qb.andWhere('f.purpose = :purpose', { purpose: q.purpose });
    if (q.after) {
      const cursor = await this.files.findOneBy({ teamId, id: q.after });
      if (!cursor) return [];
      qb.andWhere(q.order === 'desc' ? 'f.seq < :seq' : 'f.seq > :seq', { seq: cursor.seq });
    }
    return qb
      .orderBy('f.seq', q.order === 'desc' ? 'DESC' : 'ASC')
      .limit(q.limit + 1)
      .getMany();
  }

  /**
   * Insert or overwrite by id (a link's fetched copy on every refresh). New bytes in parts are written
   * under a staging id first and moved to the file in the transaction that updates its row, so a
   * reader sees the old bytes or the new ones, never a mix.
   */
  async replace(row: Omit<StoredFileEntity, 'seq'>): Promise<void> {
    const staging = `${row.id}~${randomBytes(3).toString('hex')}`;
    const parts = await this.writeParts(staging, row.bytes);
    try {
      await this.tx.run(async (m) => {
        const existing = await m.findOneBy(StoredFileEntity, { id: row.id });
        await m.delete(FilePartEntity, { fileId: row.id });
        if (parts > 0) await m.update(FilePartEntity, { fileId: staging }, { fileId: row.id });
        const values = { ...row, ...stored(row.bytes, parts) };
        if (existing) await m.update(StoredFileEntity, { id: row.id }, values);
        else await m.insert(StoredFileEntity, values);
      });
    } catch (err) {
      if (parts > 0) await this.parts.delete({ fileId: staging }).catch(() => undefined);
      throw err;
    }
  }

  /** Deletes the file with its audit record, in one transaction. */
  async delete(teamId: string, id: string): Promise<boolean> {
    return this.tx.run(async (m) => {
      const row = await m.findOneBy(StoredFileEntity, { teamId, id });
      const res = await m.delete(StoredFileEntity, { teamId, id });
      if ((res.affected ?? 0) === 0 || !row) return false;
      if (row.parts) await m.delete(FilePartEntity, { fileId: id });
      await this.record(m, 'file.delete', row, true);
      return true;
    });
  }

  private record(m: EntityManager, action: string, f: Omit<FileRow, 'seq'>, deleted: boolean): Promise<void> {
    const view = { filename: f.filename, purpose: f.purpose, mime: f.mime, bytes: f.byteSize, sha256: f.sha256 };
    return this.audit.record(m, {
      teamId: f.teamId,
      action,
      targetType: 'file',
      targetId: f.id,
      before: deleted ? view : null,
      after: deleted ? null : view,
    });
  }
}

/** What the file's own row holds of its bytes: all of them, or none when they are in parts. */
function stored(bytes: Buffer, parts: number): Pick<StoredFileEntity, 'bytes' | 'parts'> {
  return parts > 0 ? { bytes: Buffer.alloc(0), parts } : { bytes, parts: 0 };
}
