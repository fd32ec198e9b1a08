/**
 * Hostile documents: a PDF whose page content inflates to 1 GiB, a DOCX whose document.xml inflates
 * to 2 GiB, HTML with 10^6 nested elements and JSON with 200 000 nested arrays — each generated in
 * the test — fail with last_error parse_limit_exceeded while /health keeps answering quickly (their
 * parsers run in worker threads under bounds and limits, off the event loop); ordinary documents
 * still ingest afterwards. The same bombs in a chat's file_urls and in a Slack export are refused
 * with 400 parse_limit_exceeded. A document that stops its parser by running out of time is retried
 * once and then fails for good; a job whose document already stopped its parser twice (recorded in
 * the database) fails on another replica without being parsed again.
 */
import OpenAI, { toFile } from 'openai';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { IngestJobEntity } from '@app/knowledge/entities/knowledge.entities';
import { Wallet } from '../chat/chat-helpers';
import { AdminClient } from '../support/admin-client';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import { docxWith, pdfWithPages } from './kb-fixtures';
import { deepHtml, deepJson, docxBomb, pdfBomb, slackBomb } from './hostile-fixtures';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Runs `work` while calling GET /health every 50 ms: what `work` returned, the latency of every call,
 * and how far the process's resident memory (workers included) rose above where it started.
 */
async function whileProbingHealth<T>(
  url: string,
  work: () => Promise<T>,
): Promise<{ result: T; latencies: number[]; rssRise: number }> {
  const latencies: number[] = [];
  const rssBefore = process.memoryUsage.rss();
  let rssPeak = rssBefore;
  let running = true;
  const loop = (async () => {
    while (running) {
      const t0 = performance.now();
      const res = await fetch(`${url}/health`);
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`/health answered ${res.status}`);
      latencies.push(performance.now() - t0);
      rssPeak = Math.max(rssPeak, process.memoryUsage.rss());
      await sleep(50);
    }
  })();
  loop.catch(() => undefined); // observed below; this only keeps a failure from being reported as unhandled
  try {
    const result = await work();
    running = false;
    await loop; // a /health failure fails the test
    return { result, latencies, rssRise: rssPeak - rssBefore };
  } finally {
    running = false;
    await loop.catch(() => undefined);
  }
}

describe(`hostile documents on ${backendKind()}`, () => {
  let t: TestApp;
  let apiKey: string;
  let client: OpenAI;
  let bombs: [string, Buffer][];

  beforeAll(async () => {
    // generated before any request, so the probe measures the server, not the generation
    bombs = [
      ['bomb.pdf', pdfBomb(1024)],
      ['bomb.docx', docxBomb(2048)],
      ['deep.html', deepHtml(1_000_000)],
      ['deep.json', deepJson(200_000)],
    ];
    t = await createTestApp({ env: { INGEST_POLL_MS: '100', INGEST_CONCURRENCY: '4' } });
    ({ apiKey } = await new AdminClient(t.url).teamWithKey(100, 'hostile-team'));
    client = new OpenAI({ apiKey, baseURL: `${t.url}/v1`, maxRetries: 0 });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('each bomb fails with parse_limit_exceeded; /health answers within 1 s throughout; ordinary documents still ingest', async () => {
    const store = await client.vectorStores.create({ name: 'hostile' });
    const files = await Promise.all(
      bombs.map(async ([name, bytes]) =>
        client.files.create({ file: await toFile(bytes, name), purpose: 'assistants' }),
      ),
    );
    const started = Date.now();
    const {
      result: results,
      latencies,
      rssRise,
    } = await whileProbingHealth(t.url, () =>
      Promise.all(
        files.map((f) => client.vectorStores.files.createAndPoll(store.id, { file_id: f.id }, { pollIntervalMs: 100 })),
      ),
    );
    const maxLatencyMs = Math.round(Math.max(...latencies));
    const tookMs = Date.now() - started;
    const rssRiseMiB = Math.round(rssRise / (1024 * 1024));
    // one object, so a failure shows every measurement
    expect({
      documents: results.map((r, i) => ({ file: bombs[i][0], status: r.status, last_error: r.last_error })),
      healthCalls: latencies.length,
      maxLatencyMs,
      tookMs,
      rssRiseMiB,
      // every /health call answered within 1 s
      healthAlwaysFast: maxLatencyMs < 1000,
      // the bounds stop each bomb early: nothing was inflated or parsed for minutes (nor until the wall-time limit)
      stoppedEarly: tookMs < 60_000,
      // nothing inflated into memory: 3 GiB of decompressed content left the process well under 1 GiB higher
      memoryBounded: rssRiseMiB < 1024,
    }).toMatchObject({
      documents: bombs.map(([file]) => ({
        file,
        status: 'failed',
        last_error: { code: 'parse_limit_exceeded', message: expect.stringMatching(/inflates|nests/) },
      })),
      healthCalls: expect.any(Number),
      healthAlwaysFast: true,
      stoppedEarly: true,
      memoryBounded: true,
    });
    expect(latencies.length).toBeGreaterThan(0);

    // the process and its parser workers are fine: ordinary documents parse exactly as before
    const pdf = await pdfWithPages([['The harbour opens at dawn and closes at dusk.']], 'Harbour');
    const docx = await docxWith('Rules', ['Keep the gate closed after sunset.']);
    const html = Buffer.from(
      '<html><head><title>Guide</title></head><body><article><h2>Steps</h2><p>First open the lid carefully and then remove the filter cartridge before rinsing it in water.</p></article></body></html>',
    );
    const json = Buffer.from(
      JSON.stringify({
        matrix: [
          [1, 2],
          [3, [4, [5]]],
        ],
        owner: 'ops',
      }),
    );
    const ok = await Promise.all(
      (
        [
          ['ok.pdf', pdf],
          ['ok.docx', docx],
          ['ok.html', html],
          ['ok.json', json],
        ] as const
      ).map(async ([name, bytes]) =>
        client.vectorStores.files.uploadAndPoll(store.id, await toFile(bytes, name), { pollIntervalMs: 100 }),
      ),
    );
    expect(ok.map((r) => r.status)).toEqual(['completed', 'completed', 'completed', 'completed']);
    const search = await client.vectorStores.search(store.id, { query: 'when does the harbour open?' });
    expect(search.data[0].content[0].text).toContain('The harbour opens at dawn');
  });

  it('a PDF bomb in a chat’s file_urls → 400 parse_limit_exceeded before any upstream call, nothing charged', async () => {
    const wallet = await new Wallet(t.url, apiKey).snapshot();
    const res = await request(t.url)
      .post('/api/v1/chat')
      .set('api-key', apiKey)
      .send({
        model: 'local',
        user_id: 'u',
        prompt: 'Summarise the file.',
        file_urls: [`data:application/pdf;base64,${bombs[0][1].toString('base64')}`],
      });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'parse_limit_exceeded', param: 'file_urls[0]' });
    await wallet.expectUntouched();
  });

  it('a Slack export whose channel JSON inflates to 1 GiB → 400 parse_limit_exceeded', async () => {
    const project = await request(t.url).post('/api/v1/projects').set('api-key', apiKey).send({ name: 'Chats' });
    expect(project.status).toBe(201);
    const res = await request(t.url)
      .post(`/api/v1/projects/${project.body.id}/messenger-chats`)
      .set('api-key', apiKey)
      .field('format', 'slack')
      .attach('file', slackBomb(1024), 'export.zip');
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'parse_limit_exceeded', param: 'file' });
    expect(res.body.error.message).toMatch(/inflates/);
  });
});

describe(`parser stopped for time, on ${backendKind()}`, () => {
  let t: TestApp;
  let client: OpenAI;

  beforeAll(async () => {
    // a wall-time limit that a large (flat, not nested) HTML page cannot meet: its 9.5 MB are
    // extracted in one streaming pass, but the 6.5 MB of words that come out, nearly all different,
    // take seconds to tokenize into chunks (≈ 3 s on an idle fast machine). The same limit applies
    // to the type sniffing when the file is attached, which a loaded machine's fresh parser worker
    // must pass: a tight limit made that fail instead, so the limit leaves it room.
    t = await createTestApp({ env: { INGEST_POLL_MS: '100', PARSER_TIMEOUT_MS: '1500' } });
    const { apiKey } = await new AdminClient(t.url).teamWithKey(100, 'slow-team');
    client = new OpenAI({ apiKey, baseURL: `${t.url}/v1`, maxRetries: 0 });
  });
  afterAll(async () => {
    await t?.close();
  });

  const jobOf = (app: TestApp, documentId: string) =>
    app.get(DataSource).getRepository(IngestJobEntity).findOneByOrFail({ documentId });

  it('is retried once, then fails with parse_limit_exceeded (two parser runs in all)', async () => {
    // a pseudo-random word of letters per number (few repeat, so the tokenizer's cache does not help)
    const word = (n: number) =>
      (Math.imul(n + 1, 2654435761) >>> 0).toString(26).replace(/\d/g, (d) => 'qrstuvwxyz'[+d]);
    const html = Buffer.from(
      `<!doctype html><html><body>${Array.from({ length: 430_000 }, (_, i) => `<p>${word(i)} ${word(i + 430_000)}</p>`).join('')}</body></html>`,
    );
    const store = await client.vectorStores.create({ name: 'slow' });
    const file = await toFile(html, 'big.html');
    const { result: r, latencies } = await whileProbingHealth(t.url, () =>
      client.vectorStores.files.uploadAndPoll(store.id, file, { pollIntervalMs: 100 }),
    );
    expect(r.status).toBe('failed');
    expect(r.last_error).toMatchObject({ code: 'parse_limit_exceeded' });
    expect(r.last_error?.message).toMatch(/longer than 1500 ms/);
    const job = await jobOf(t, r.id);
    expect(job).toMatchObject({ status: 'failed', attempts: 2, parseRuns: 2 });
    expect(Math.max(...latencies)).toBeLessThan(1000);
  });

  it('a job whose document already stopped its parser twice fails on another replica without a third run', async () => {
    // a replica that does not ingest: the job stays queued while its record is set as two dead replicas left it
    const quiet = await createTestApp({ env: { INGEST_CONCURRENCY: '0' } });
    let ingesting: TestApp | undefined;
    try {
      const { apiKey } = await new AdminClient(quiet.url).teamWithKey(100, 'replica-team');
      const c = new OpenAI({ apiKey, baseURL: `${quiet.url}/v1`, maxRetries: 0 });
      const store = await c.vectorStores.create({ name: 'replicas' });
      const file = await c.files.create({
        file: await toFile(Buffer.from('An ordinary note that parses in a millisecond.'), 'note.txt'),
        purpose: 'assistants',
      });
      await c.vectorStores.files.create(store.id, { file_id: file.id });
      await quiet.app.get(DataSource).getRepository(IngestJobEntity).update({ documentId: file.id }, { parseRuns: 2 });
      // another replica on the same database claims the job
      ingesting = await createTestApp({ env: { INGEST_POLL_MS: '100' }, shareBackendWith: quiet });
      const done = await c.vectorStores.files.poll(store.id, file.id, { pollIntervalMs: 100 });
      expect(done.status).toBe('failed');
      expect(done.last_error).toMatchObject({ code: 'parse_limit_exceeded' });
      expect(done.last_error?.message).toMatch(/did not finish in 2 runs/);
      expect(await jobOf(quiet, file.id)).toMatchObject({ status: 'failed', attempts: 1, parseRuns: 2 });
    } finally {
      await ingesting?.close();
      await quiet.close();
    }
  });
});
