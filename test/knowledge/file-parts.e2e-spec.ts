/**
 * A file larger than one part is stored as parts of its own (`file_parts`), each written and read by
 * a statement of its own, so that on SQLite no single statement or commit of an upload holds the
 * event loop for the whole file. The bytes come back exactly; deleting or replacing the file leaves
 * no part behind; parts that an interrupted store left without a file are removed after an hour.
 */
import { createHash, randomBytes } from 'node:crypto';
import OpenAI, { toFile } from 'openai';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { BetterSqlite3QueryRunner } from 'typeorm/driver/better-sqlite3/BetterSqlite3QueryRunner';
import { Clock } from '@app/common';
import { FilePartEntity } from '@app/knowledge/entities/file-part.entity';
import { StoredFileEntity } from '@app/knowledge/entities/stored-file.entity';
import { FILE_PART_BYTES, FilesRepository } from '@app/knowledge/files.repository';
import { AdminClient } from '../support/admin-client';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe(`large files are stored in parts (${backendKind()})`, () => {
  let t: TestApp;
  let client: OpenAI;
  let apiKey: string;
  let teamId: string;
  let ds: DataSource;
  const parts = (fileId: string) =>
    ds.getRepository(FilePartEntity).find({ where: { fileId }, order: { ordinal: 'ASC' } });
  const row = (id: string) =>
    ds
      .getRepository(StoredFileEntity)
      .createQueryBuilder('f')
      .addSelect('f.bytes')
      .where('f.id = :id', { id })
      .getOne();
  const content = async (id: string): Promise<Buffer> => {
    const res = await request(t.url)
      .get(`/v1/files/${id}/content`)
      .set('authorization', `Bearer ${apiKey}`)
      .buffer(true)
      .parse((r, done) => {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () => done(null, Buffer.concat(chunks)));
      });
    expect(res.status).toBe(200);
    return res.body as Buffer;
  };

  beforeAll(async () => {
    t = await createTestApp({});
    ({ apiKey, teamId } = await new AdminClient(t.url).teamWithKey(1_000, 'parts'));
    client = new OpenAI({ apiKey, baseURL: `${t.url}/v1`, maxRetries: 0, timeout: 60_000 });
    ds = t.get(DataSource);
  });
  afterAll(() => t?.close());

  it('stores a 3.5 MB upload as 4 parts, the file row empty, and gives the same bytes back', async () => {
    const bytes = randomBytes(3 * FILE_PART_BYTES + FILE_PART_BYTES / 2);
    const writes: number[] = [];
    const query = BetterSqlite3QueryRunner.prototype.query;
    // on SQLite, the size of every file part a statement carried
    const spy =
      backendKind() === 'embedded'
        ? jest.spyOn(BetterSqlite3QueryRunner.prototype, 'query').mockImplementation(async function (
            this: BetterSqlite3QueryRunner,
            ...args: Parameters<typeof query>
          ) {
            for (const p of (args[1] ?? []) as unknown[]) if (Buffer.isBuffer(p)) writes.push(p.length);
            return (await query.apply(this, args)) as never;
          })
        : undefined;
    let file;
    try {
      file = await client.files.create({ file: await toFile(bytes, 'big.bin'), purpose: 'assistants' });
    } finally {
      spy?.mockRestore();
    }
    expect(file.bytes).toBe(bytes.length);
    const stored = await parts(file.id);
    expect(stored.map((p) => p.ordinal)).toEqual([0, 1, 2, 3]);
    expect(stored.map((p) => Buffer.from(p.bytes).length)).toEqual([
      FILE_PART_BYTES,
      FILE_PART_BYTES,
      FILE_PART_BYTES,
      FILE_PART_BYTES / 2,
    ]);
    const own = await row(file.id);
    expect(own).toMatchObject({ parts: 4, byteSize: bytes.length, sha256: sha(bytes) });
    expect(Buffer.from(own!.bytes).length).toBe(0);
    if (backendKind() === 'embedded') {
      // no statement carried more than one part of the file
      expect(writes.length).toBeGreaterThanOrEqual(4);
      expect(Math.max(...writes)).toBeLessThanOrEqual(FILE_PART_BYTES);
    }
    expect(sha(await content(file.id))).toBe(sha(bytes));
  });

  it('keeps a small file in its own row', async () => {
    const bytes = randomBytes(10_000);
    const file = await client.files.create({ file: await toFile(bytes, 'small.bin'), purpose: 'assistants' });
    expect(await parts(file.id)).toEqual([]);
    expect(await row(file.id)).toMatchObject({ parts: 0 });
    expect((await content(file.id)).equals(bytes)).toBe(true);
  });

  it('deleting a file removes its parts', async () => {
    const file = await client.files.create({
      file: await toFile(randomBytes(FILE_PART_BYTES + 1), 'gone.bin'),
      purpose: 'assistants',
    });
    expect(await parts(file.id)).toHaveLength(2);
    await client.files.delete(file.id);
    expect(await parts(file.id)).toEqual([]);
  });

  it('replacing a file swaps its parts whole: large to larger, then small; no staging part is left', async () => {
    const repo = t.get(FilesRepository);
    const base = {
      id: `file-${randomBytes(12).toString('hex')}`,
      teamId,
      filename: 'link.txt',
      purpose: 'user_data',
      mime: 'text/plain',
      createdAt: Date.now(),
    };
    const put = (bytes: Buffer) => repo.replace({ ...base, byteSize: bytes.length, sha256: sha(bytes), bytes });
    const first = randomBytes(2 * FILE_PART_BYTES);
    await put(first);
    expect((await repo.content(teamId, base.id))!.equals(first)).toBe(true);
    const second = randomBytes(3 * FILE_PART_BYTES + 5);
    await put(second);
    expect(await parts(base.id)).toHaveLength(4);
    expect((await repo.content(teamId, base.id))!.equals(second)).toBe(true);
    const third = Buffer.from('short now');
    await put(third);
    expect(await parts(base.id)).toEqual([]);
    expect((await repo.content(teamId, base.id))!.equals(third)).toBe(true);
    const leftovers = await ds
      .getRepository(FilePartEntity)
      .createQueryBuilder('p')
      .where('p.file_id LIKE :prefix', { prefix: `${base.id}~%` })
      .getCount();
    expect(leftovers).toBe(0);
  });

  it('removes parts without a file once they are an hour old, and only those', async () => {
    const repo = t.get(FilesRepository);
    const now = t.get(Clock).now();
    const partsRepo = ds.getRepository(FilePartEntity);
    await partsRepo.insert([
      { fileId: 'file-interrupted-old', ordinal: 0, bytes: Buffer.from('a'), createdAt: now - 2 * 3_600_000 },
      { fileId: 'file-interrupted-old', ordinal: 1, bytes: Buffer.from('b'), createdAt: now - 2 * 3_600_000 },
      { fileId: 'file-being-stored', ordinal: 0, bytes: Buffer.from('c'), createdAt: now - 1_000 },
    ]);
    const kept = await client.files.create({
      file: await toFile(randomBytes(FILE_PART_BYTES + 1), 'kept.bin'),
      purpose: 'assistants',
    });
    expect(await repo.purgeOrphanParts()).toBe(2);
    expect(await parts('file-interrupted-old')).toEqual([]);
    expect(await parts('file-being-stored')).toHaveLength(1);
    expect(await parts(kept.id)).toHaveLength(2);
  });
});
