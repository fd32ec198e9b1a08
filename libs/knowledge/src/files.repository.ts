import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { ChangeRecorder, TransactionRunner } from '@app/database';
import { StoredFileEntity } from './entities/stored-file.entity';

export type FileRow = Omit<StoredFileEntity, 'bytes'>;

export interface FileListQuery {
  after?: string;
  limit: number;
  order: 'asc' | 'desc';
  purpose?: string;
}

@Injectable()
export class FilesRepository {
  constructor(
    @InjectRepository(StoredFileEntity) private readonly files: Repository<StoredFileEntity>,
    private readonly tx: TransactionRunner,
    private readonly audit: ChangeRecorder,
  ) {}

  /** Stores the file and its audit record (name, purpose, size and digest: never the content), in one transaction. */
  async insert(row: Omit<StoredFileEntity, 'seq'>): Promise<void> {
    await this.tx.run(async (m) => {
      await m.insert(StoredFileEntity, { ...row });
      await this.record(m, 'file.create', row, false);
    });
  }

  /** The team's file, or null (another team's id is the same as an unknown one). */
  findOwned(teamId: string, id: string): Promise<FileRow | null> {
    return this.files.findOneBy({ teamId, id });
  }

  async content(teamId: string, id: string): Promise<Buffer | null> {
    const row = await this.files
      .createQueryBuilder('f')
      .addSelect('f.bytes')
      .where('f.team_id = :teamId AND f.id = :id', { teamId, id })
      .getOne();
    return row ? Buffer.from(row.bytes) : null;
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

  /** Insert or overwrite by id (a link's fetched copy on every refresh). */
  async replace(row: Omit<StoredFileEntity, 'seq'>): Promise<void> {
    const existing = await this.files.findOneBy({ id: row.id });
    if (existing) await this.files.update({ id: row.id }, row);
    else await this.files.insert(row);
  }

  /** Deletes the file with its audit record, in one transaction. */
  async delete(teamId: string, id: string): Promise<boolean> {
    return this.tx.run(async (m) => {
      const row = await m.findOneBy(StoredFileEntity, { teamId, id });
      const res = await m.delete(StoredFileEntity, { teamId, id });
      if ((res.affected ?? 0) === 0 || !row) return false;
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
