import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { ApiError, Clock, sha256Hex } from '@app/common';
import type { Caller } from '@app/auth';
import { FileDeletedDto, FileListDto, FileListQueryDto, FileObjectDto } from './dto/files.dto';
import { FileRow, FilesRepository } from './files.repository';

/** Spec section 8: files up to 10 MB. */
export const MAX_FILE_BYTES = 10 * 1024 * 1024;

export interface UploadedBytes {
  originalname: string;
  mimetype: string;
  buffer: Buffer;
}

export function newFileId(): string {
  return `file-${randomBytes(12).toString('hex')}`;
}

/** A file name as stored: the base name only, no control characters, at most 255 characters. */
export function cleanFilename(name: string): string {
  const base = name
    .split(/[\\/]/)
    .pop()!
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .trim();
  return (base || 'upload').slice(0, 255);
}

export function toFileObject(row: FileRow): FileObjectDto {
  return {
    id: row.id,
    object: 'file',
    bytes: row.byteSize,
    created_at: Math.floor(row.createdAt / 1000),
    filename: row.filename,
    purpose: row.purpose,
    status: 'processed',
  };
}

/** The OpenAI Files API over the database: upload, list (cursor pages), retrieve, content, delete. */
@Injectable()
export class FilesService {
  constructor(
    private readonly files: FilesRepository,
    private readonly clock: Clock,
  ) {}

  async upload(caller: Caller, file: UploadedBytes | undefined, purpose: string): Promise<FileObjectDto> {
    const row = await this.store(caller.teamId, file, purpose);
    return toFileObject(row);
  }

  /**
   * Stores bytes as a file of the team (also used by knowledge-base documents and links). `sha256`:
   * the bytes' digest when the caller has it already (not computed twice).
   */
  async store(teamId: string, file: UploadedBytes | undefined, purpose: string, sha256?: string): Promise<FileRow> {
    if (!file || !Buffer.isBuffer(file.buffer))
      throw ApiError.badRequest('A multipart field "file" is required.', 'file');
    if (file.buffer.length === 0) throw ApiError.badRequest('The file is empty.', 'file');
    if (file.buffer.length > MAX_FILE_BYTES)
      throw ApiError.tooLarge(`The file is ${file.buffer.length} bytes; files are limited to 10 MB.`, 'file');
    const row = {
      id: newFileId(),
      teamId,
      filename: cleanFilename(file.originalname ?? ''),
      purpose,
      mime: (file.mimetype || 'application/octet-stream').slice(0, 100),
      byteSize: file.buffer.length,
      sha256: sha256 ?? (await sha256Hex(file.buffer)),
      bytes: file.buffer,
      createdAt: this.clock.now(),
    };
    await this.files.insert(row);
    const { bytes: _bytes, ...meta } = row;
    return meta as FileRow;
  }

  async list(caller: Caller, q: FileListQueryDto): Promise<FileListDto> {
    const limit = q.limit ?? 10_000;
    const rows = await this.files.list(caller.teamId, {
      after: q.after,
      limit,
      order: q.order ?? 'desc',
      purpose: q.purpose,
    });
    const page = rows.slice(0, limit).map(toFileObject);
    return {
      object: 'list',
      data: page,
      has_more: rows.length > limit,
      first_id: page[0]?.id ?? null,
      last_id: page[page.length - 1]?.id ?? null,
    };
  }

  async get(caller: Caller, id: string): Promise<FileObjectDto> {
    return toFileObject(await this.require(caller.teamId, id));
  }

  async require(teamId: string, id: string): Promise<FileRow> {
    const row = await this.files.findOwned(teamId, id);
    if (!row) throw ApiError.notFound(`No such file: ${id}`, 'file_not_found', 'file_id');
    return row;
  }

  async content(caller: Caller, id: string): Promise<{ row: FileRow; bytes: Buffer }> {
    const row = await this.require(caller.teamId, id);
    const bytes = await this.files.content(caller.teamId, id);
    if (!bytes) throw ApiError.notFound(`No such file: ${id}`, 'file_not_found', 'file_id');
    return { row, bytes };
  }

  async bytes(teamId: string, id: string): Promise<Buffer | null> {
    return this.files.content(teamId, id);
  }

  /** The file's bytes; 404 when it is gone (deleted since it was looked up). */
  async requireBytes(teamId: string, id: string): Promise<Buffer> {
    const bytes = await this.files.content(teamId, id);
    if (!bytes) throw ApiError.notFound(`No such file: ${id}`, 'file_not_found', 'file_id');
    return bytes;
  }

  /** Deletes the team's file if it exists (files a project created for its materials). */
  async remove(teamId: string, id: string): Promise<void> {
    await this.files.delete(teamId, id);
  }

  find(teamId: string, id: string): Promise<FileRow | null> {
    return this.files.findOwned(teamId, id);
  }

  /** Overwrites the bytes of the team's file (a project material whose text changed). */
  async replaceBytes(teamId: string, id: string, filename: string, mime: string, bytes: Buffer): Promise<void> {
    if (bytes.length > MAX_FILE_BYTES)
      throw ApiError.tooLarge(`The content is ${bytes.length} bytes; files are limited to 10 MB.`, 'file');
    const row = await this.require(teamId, id);
    await this.files.replace({
      ...row,
      filename,
      mime,
      byteSize: bytes.length,
      sha256: await sha256Hex(bytes),
      bytes,
      createdAt: row.createdAt,
    });
  }

  async delete(caller: Caller, id: string): Promise<FileDeletedDto> {
    if (!(await this.files.delete(caller.teamId, id)))
      throw ApiError.notFound(`No such file: ${id}`, 'file_not_found', 'file_id');
    return { id, object: 'file', deleted: true };
  }
}
