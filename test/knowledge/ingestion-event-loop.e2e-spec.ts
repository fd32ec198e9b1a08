/**
 * Ingesting a large document leaves the event loop free: while 1.3 MB of text is chunked, stemmed,
 * embedded and written, the event loop's delay (perf_hooks' histogram, in this process) stays under
 * 400 ms at p99 and /health answers within 1.5 s. Before the keyword terms and short embedding
 * batches moved to the parser workers, each batch of chunk rows held the loop for about a second on a
 * loaded machine: p99 1,056 ms, worst 2,171 ms, /health 3,419 ms. Since, on the same heavily loaded
 * 2-core machine: p99 78–187 ms, worst 136–802 ms, /health 151–634 ms. The bounds sit between the
 * two so that scheduling noise of a loaded machine does not fail the test; the worst case is logged,
 * not asserted (no single task of the ingestion shows past ~80 ms in a CPU profile).
 * On SQLite a second test asserts what does not depend on the machine's load: no statement of a
 * large document's ingestion writes more than a slice of its chunk rows (the swap's key move of a
 * whole document was one statement: 472 ms for a 10 MiB file on a loaded machine).
 */
import { get } from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import OpenAI, { toFile } from 'openai';
import { BetterSqlite3QueryRunner } from 'typeorm/driver/better-sqlite3/BetterSqlite3QueryRunner';
import { KnowledgeRepository } from '@app/knowledge/knowledge.repository';
import { AdminClient } from '../support/admin-client';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import { distinctText } from './kb-fixtures';

const P99_MS = 400;
/** The most chunk rows one SQLite statement of an ingestion may write (a slice of the staging, publishing or purging). */
const ROWS_PER_STATEMENT = 256;
const HEALTH_MS = 1_500;

/** One /health request on a fresh connection (no keep-alive socket the server may close meanwhile): ms to its answer. */
function healthLatency(url: string): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    get(`${url}/health`, { agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(performance.now() - started));
    }).on('error', reject);
  });
}

describe(`a large document's ingestion does not block the event loop (${backendKind()})`, () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ env: { INGEST_POLL_MS: '100' } });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('1.3 MB of text: the event loop stays free while it is ingested', async () => {
    const admin = new AdminClient(t.url);
    const { apiKey, teamId } = await admin.teamWithKey(100_000, 'large-doc');
    const client = new OpenAI({ apiKey, baseURL: `${t.url}/v1`, maxRetries: 0, timeout: 120_000 });
    const text = distinctText('bulk', 6_000);
    expect(text.length).toBeGreaterThan(1_300_000);
    const file = await client.files.create({
      file: await toFile(Buffer.from(text), 'bulk.txt'),
      purpose: 'assistants',
    });
    const store = await client.vectorStores.create({ name: 'bulk' });

    // the loop's delay, sampled every 10 ms by a timer of node itself
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    let healthMax = 0;
    let polls = 0;
    let done = false;
    const poll = (async () => {
      while (!done) {
        healthMax = Math.max(healthMax, await healthLatency(t.url));
        polls++;
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    await client.vectorStores.files.create(store.id, { file_id: file.id });
    const repo = t.get(KnowledgeRepository);
    let doc = await repo.findDocument(teamId, store.id, file.id);
    const giveUp = Date.now() + 240_000;
    while (doc?.status !== 'completed' && doc?.status !== 'failed' && Date.now() < giveUp) {
      await new Promise((r) => setTimeout(r, 100));
      doc = await repo.findDocument(teamId, store.id, file.id);
    }
    delay.disable();
    done = true;
    await poll;
    const maxMs = delay.max / 1e6;
    const p99Ms = delay.percentile(99) / 1e6;
    console.log(
      `ingested ${doc?.chunkCount} chunks; loop delay p99 ${p99Ms.toFixed(1)} ms, max ${maxMs.toFixed(1)} ms; /health max ${healthMax.toFixed(1)} ms over ${polls} polls`,
    );
    expect(doc).toMatchObject({ status: 'completed' });
    expect(doc!.chunkCount).toBeGreaterThan(500);
    expect(polls).toBeGreaterThan(10);
    expect(p99Ms).toBeLessThan(P99_MS);
    expect(healthMax).toBeLessThan(HEALTH_MS);
  }, 300_000);
  // SQLite runs its statements on the event loop's thread: one statement writing a whole document's
  // rows held every request for its duration, however loaded the machine is. Postgres works off the loop.
  (backendKind() === 'embedded' ? it : it.skip)(
    "no SQLite statement of a large document's ingestion writes more than a slice of its rows",
    async () => {
      const admin = new AdminClient(t.url);
      const { apiKey, teamId } = await admin.teamWithKey(100_000, 'slices');
      const client = new OpenAI({ apiKey, baseURL: `${t.url}/v1`, maxRetries: 0, timeout: 120_000 });
      const file = await client.files.create({
        file: await toFile(Buffer.from(distinctText('slice', 6_000)), 'slice.txt'),
        purpose: 'assistants',
      });
      const store = await client.vectorStores.create({ name: 'slices' });
      // every write statement's affected rows, while the document is ingested
      const writes: { rows: number; sql: string }[] = [];
      const proto = BetterSqlite3QueryRunner.prototype;
      const query = proto.query;
      const spy = jest.spyOn(proto, 'query').mockImplementation(async function (
        this: BetterSqlite3QueryRunner,
        ...args: Parameters<typeof query>
      ) {
        const r = (await query.apply(this, args)) as { affected?: number } | unknown;
        const affected = (r as { affected?: number } | null)?.affected;
        if (typeof affected === 'number' && /kb_chunks/.test(args[0]))
          writes.push({ rows: affected, sql: args[0].slice(0, 80) });
        return r as never;
      });
      try {
        await client.vectorStores.files.create(store.id, { file_id: file.id });
        const repo = t.get(KnowledgeRepository);
        let doc = await repo.findDocument(teamId, store.id, file.id);
        const giveUp = Date.now() + 240_000;
        while (doc?.status !== 'completed' && doc?.status !== 'failed' && Date.now() < giveUp) {
          await new Promise((r) => setTimeout(r, 100));
          doc = await repo.findDocument(teamId, store.id, file.id);
        }
        expect(doc).toMatchObject({ status: 'completed' });
        expect(doc!.chunkCount).toBeGreaterThan(2 * ROWS_PER_STATEMENT);
        expect((await repo.documentChunks(store.id, file.id)).length).toBe(doc!.chunkCount);
      } finally {
        spy.mockRestore();
      }
      // the document's rows were all written, and each statement wrote a slice of them at most
      expect(writes.reduce((n, w) => n + w.rows, 0)).toBeGreaterThanOrEqual(1_000);
      const largest = writes.reduce((a, w) => (w.rows > a.rows ? w : a), { rows: 0, sql: '' });
      expect(largest.rows <= ROWS_PER_STATEMENT ? 'sliced' : `${largest.rows} rows: ${largest.sql}`).toBe('sliced');
    },
    300_000,
  );
});
