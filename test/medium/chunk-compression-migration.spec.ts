import { ChunkCompression1795900000000 } from '@app/database/migrations/1795900000000-chunk-compression';
import { DataSource } from 'typeorm';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';

/**
 * Chunk rows compressed with lz4 on Postgres (the server here is built with it); on SQLite the
 * migration changes nothing. Down puts the columns back on the server's default compression.
 */
describe(`chunk compression migration on ${backendKind()}`, () => {
  let app: TestApp;
  let ds: DataSource;

  beforeAll(async () => {
    app = await createTestApp({ env: { INGEST_CONCURRENCY: '0' } });
    ds = app.get(DataSource);
  });
  afterAll(async () => {
    await app?.close();
  });

  /** column → its compression ('l' lz4, 'p' pglz, '' the server's default) */
  async function compression(): Promise<Record<string, string>> {
    const schema = (ds.options as { schema?: string }).schema ?? 'public';
    const rows = (await ds.query(
      `SELECT a.attname AS name, a.attcompression AS method
         FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE c.relname = 'kb_chunks' AND n.nspname = $1 AND a.attname IN ('text', 'terms', 'embedding', 'tsv')`,
      [schema],
    )) as Array<{ name: string; method: string }>;
    return Object.fromEntries(rows.map((r) => [r.name, r.method]));
  }

  const pg = backendKind() === 'postgres';
  (pg ? it : it.skip)(
    'Postgres: text, terms, embedding and tsvector of a chunk are lz4; down restores the default',
    async () => {
      expect(await compression()).toEqual({ text: 'l', terms: 'l', embedding: 'l', tsv: 'l' });
      const runner = ds.createQueryRunner();
      try {
        await new ChunkCompression1795900000000().down(runner);
        expect(await compression()).toEqual({ text: '', terms: '', embedding: '', tsv: '' });
        await new ChunkCompression1795900000000().up(runner);
        expect(await compression()).toEqual({ text: 'l', terms: 'l', embedding: 'l', tsv: 'l' });
      } finally {
        await runner.release();
      }
    },
  );

  (pg ? it.skip : it)('SQLite: up and down change nothing and do not fail', async () => {
    const runner = ds.createQueryRunner();
    try {
      await new ChunkCompression1795900000000().down(runner);
      await new ChunkCompression1795900000000().up(runner);
      const [row] = (await ds.query(`SELECT count(*) AS n FROM kb_chunks`)) as Array<{ n: number }>;
      expect(Number(row.n)).toBe(0);
    } finally {
      await runner.release();
    }
  });
});
