/**
 * A document's ingestion is charged once when the replica ingesting it is killed with SIGKILL.
 * A built gateway (dist) runs as a child process on the same database as an in-process replica
 * that has no worker of its own; the child claims the job of a large document, embeds it and is
 * killed as soon as its embedding charge is in the ledger — before its chunks and vectors are in
 * place. The surviving replica claims the job once the dead replica's lease has run out and
 * finishes it: the document is completed with the chunks and vectors of one run, the ledger holds
 * exactly one embedding charge for it, and the ledger replays to the balance.
 * Skipped when dist is absent (CI builds it before the tests).
 */
import { spawn, ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI, { toFile } from 'openai';
import { BillingRepository } from '@app/billing/billing.repository';
import { IngestionWorker } from '@app/knowledge/ingestion.worker';
import { KnowledgeRepository } from '@app/knowledge/knowledge.repository';
import { AdminClient } from '../support/admin-client';
import { ManualClock } from '../support/manual-clock';
import { ADMIN_TOKEN, createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import { freePort } from '../support/private-redis';
import { distinctText } from './kb-fixtures';
import { untilAnswering, waitFor } from '../support/until';

const MAIN = join(__dirname, '../../dist/apps/api/src/main.js');
/** local-embedding-small: 200 RUB per 1M tokens = 200 µRUB per token (catalog, written out). */
const MICRO_PER_TOKEN = 200;
/** The ingestion worker's lease on a job (ingestion.worker.ts), written out. */
const LEASE_MS = 60_000;

const killTest = existsSync(MAIN) ? describe : describe.skip;

killTest(`ingestion on ${backendKind()}: a replica killed with SIGKILL once its embedding charge committed`, () => {
  // the surviving replica's clock: moved past the dead replica's lease when the child is gone
  const clock = new ManualClock(Date.now());
  let a: TestApp;
  let child: ChildProcess | undefined;
  let dataDir: string;

  beforeAll(async () => {
    // no worker of its own: only the child claims the job until it is killed
    a = await createTestApp({ clock, env: { INGEST_CONCURRENCY: '0' } });
    dataDir = mkdtempSync(join(tmpdir(), 'gw-ingestkill-'));
  }, 60_000);
  afterAll(async () => {
    child?.kill('SIGKILL');
    child?.stderr?.destroy();
    await a?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('the document is charged once: the killed run charged it, the surviving run finishes it without charging', async () => {
    const { apiKey, teamId } = await new AdminClient(a.url).teamWithKey(1000, 'ingestkill');
    const client = new OpenAI({ apiKey, baseURL: `${a.url}/v1`, maxRetries: 2 });
    const billing = a.get(BillingRepository);
    const repo = a.get(KnowledgeRepository);
    const start = (await billing.findTeam(teamId))!.balanceMicro;

    // a large document: its chunks and vectors take a while to write after the charge
    const file = await client.files.create({
      file: await toFile(Buffer.from(distinctText('kill', 12_000)), 'kill.txt'),
      purpose: 'assistants',
    });
    const store = await client.vectorStores.create({ name: 'kill' });
    const charges = async () =>
      (await billing.listLedgerAscending(teamId)).filter(
        (e) =>
          e.endpoint === 'knowledge-base ingestion' &&
          (JSON.parse(e.details ?? '{}') as { document_id?: string }).document_id === file.id,
      );

    const port = String(await freePort());
    child = spawn(process.execPath, [MAIN], {
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        // the embedded backend's DATA_DIR holds the shared database; on Postgres it is private
        DATA_DIR: dataDir,
        ...a.backend.env,
        ADMIN_TOKEN,
        PORT: port,
        HOST: '127.0.0.1',
        LOG_LEVEL: 'silent',
        INGEST_CONCURRENCY: '1',
        INGEST_POLL_MS: '50',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
    const exited = new Promise<void>((resolve) => child!.once('exit', () => resolve()));
    await untilAnswering(`http://127.0.0.1:${port}`, { path: '/health', stderr: () => stderr });

    // attached through the surviving replica (no worker): the child's worker claims the job
    await client.vectorStores.files.create(store.id, { file_id: file.id });
    await waitFor(async () => (await charges()).length > 0, 240_000, 5).catch((err: Error) => {
      throw new Error(`${err.message}; the replica's stderr: ${stderr}`);
    });
    child.kill('SIGKILL');
    await exited;

    // the kill came after the charge and before the chunks were in place
    const charged = await charges();
    expect(charged).toHaveLength(1);
    const atKill = await repo.findDocument(teamId, store.id, file.id);
    expect(atKill!.status).toBe('in_progress');
    expect(await repo.documentChunks(store.id, file.id)).toHaveLength(0);
    const [job] = await repo.jobsFor(store.id, file.id);
    expect(job).toMatchObject({ status: 'in_progress', attempts: 1 });

    // the surviving replica: nothing to claim while the dead replica's lease runs, then the job
    const worker = a.get(IngestionWorker);
    expect(await worker.runOne()).toBe(false);
    // past the lease the child last wrote, on its own (real) clock
    clock.advance(Date.now() - clock.now() + LEASE_MS + 1_000);
    expect(await worker.runOne()).toBe(true);

    const doc = await repo.findDocument(teamId, store.id, file.id);
    expect(doc).toMatchObject({ status: 'completed', lastErrorCode: null });
    expect((await repo.jobsFor(store.id, file.id)).map((j) => j.attempts)).toEqual([2]);
    expect(doc!.chunkCount).toBeGreaterThan(100);
    expect((await repo.documentChunks(store.id, file.id)).length).toBe(doc!.chunkCount);
    expect((await repo.loadVectors(store.id)).length).toBe(doc!.chunkCount);

    // one charge, the killed run's, of exactly the document's tokens
    const after = await charges();
    expect(after).toHaveLength(1);
    expect(after[0].id).toBe(charged[0].id);
    expect(Math.abs(after[0].promptTokens - doc!.tokens)).toBeLessThanOrEqual(doc!.tokens / 100);
    expect(after[0].amountMicro).toBe(-after[0].promptTokens * MICRO_PER_TOKEN);

    // the ledger replays to the balance, which moved by that charge only
    const ledger = await billing.listLedgerAscending(teamId);
    let running = 0;
    for (const e of ledger) {
      running += e.amountMicro;
      expect(e.balanceAfterMicro).toBe(running);
    }
    const team = (await billing.findTeam(teamId))!;
    expect(team.balanceMicro).toBe(running);
    expect(team.balanceMicro).toBe(start + after[0].amountMicro);
  }, 600_000);
});
