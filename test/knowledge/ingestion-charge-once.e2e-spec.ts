/**
 * A document's ingestion is charged once, whatever step its run dies at: the run is stopped at each
 * step (the step's write committed, then the run throws, as a replica that died there leaves it),
 * the job runs again after its lease and backoff, and the team's ledger holds exactly one embedding
 * charge for the document, of exactly its tokens × price, replaying to the balance.
 */
import OpenAI, { toFile } from 'openai';
import { BillingService } from '@app/billing';
import { BillingRepository } from '@app/billing/billing.repository';
import { EmbeddingsService } from '@app/embeddings';
import { IngestionWorker } from '@app/knowledge/ingestion.worker';
import { KnowledgeRepository } from '@app/knowledge/knowledge.repository';
import { AdminClient } from '../support/admin-client';
import { ManualClock } from '../support/manual-clock';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import { distinctText } from './kb-fixtures';

/** local-embedding-small: 200 RUB per 1M tokens = 200 µRUB per token (catalog, written out). */
const MICRO_PER_TOKEN = 200;

describe(`ingestion is charged once when its run dies (${backendKind()})`, () => {
  const clock = new ManualClock(Date.now());
  let t: TestApp;
  let client: OpenAI;
  let teamId: string;

  beforeAll(async () => {
    // no worker of its own: the spec runs the queue step by step
    t = await createTestApp({ clock, env: { INGEST_CONCURRENCY: '0' } });
    const admin = new AdminClient(t.url);
    let apiKey: string;
    ({ apiKey, teamId } = await admin.teamWithKey(1000, 'charge-once'));
    client = new OpenAI({ apiKey, baseURL: `${t.url}/v1`, maxRetries: 2 });
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    await t?.close();
  });

  /** Makes `method` of `target` run for real once and then throw, as if the process died right after it. */
  function dieAfter<T extends object>(target: T, method: keyof T & string): void {
    const original = (target[method] as (...a: unknown[]) => Promise<unknown>).bind(target);
    jest.spyOn(target, method as never).mockImplementationOnce((async (...args: unknown[]) => {
      await original(...args);
      throw new Error(`died after ${method}`);
    }) as never);
  }
  function dieBefore<T extends object>(target: T, method: keyof T & string): void {
    jest.spyOn(target, method as never).mockImplementationOnce((async () => {
      throw new Error(`died before ${method}`);
    }) as never);
  }

  const steps: [string, () => void][] = [
    ['after the hold was taken', () => dieAfter(t.get(BillingService), 'reserve')],
    ['after the provider answered, before the charge', () => dieAfter(t.get(EmbeddingsService), 'embed')],
    ['after the charge committed', () => dieAfter(t.get(BillingService), 'settle')],
    ['before the chunks are stored', () => dieBefore(t.get(KnowledgeRepository), 'swapChunks')],
    ['after the chunks were stored', () => dieAfter(t.get(KnowledgeRepository), 'swapChunks')],
  ];
  if (backendKind() === 'embedded')
    // SQLite writes the chunks in small transactions before the swap: dies with half of them written
    steps.push([
      'while the chunks are written',
      () => {
        const repo = t.get(KnowledgeRepository);
        const original = repo.stageChunks.bind(repo);
        jest.spyOn(repo, 'stageChunks').mockImplementationOnce(async (vs, doc, chunks) => {
          await original(vs, doc, chunks.slice(0, Math.ceil(chunks.length / 2)));
          throw new Error('died while staging');
        });
      },
    ]);

  it.each(steps)('dies %s: one charge of exactly its tokens', async (step, arm) => {
    const seed = step.replace(/\W+/g, '').slice(0, 12);
    const file = await client.files.create({
      file: await toFile(Buffer.from(distinctText(seed, 200)), `${seed}.txt`),
      purpose: 'assistants',
    });
    const store = await client.vectorStores.create({ name: seed });
    await client.vectorStores.files.create(store.id, { file_id: file.id });

    arm();
    const worker = t.get(IngestionWorker);
    const repo = t.get(KnowledgeRepository);
    // until the queue is empty, each time past the backoff and any lease, so a job run again is due
    for (let i = 0; i < 8 && (await worker.runOne()); i++) clock.advance(61_000);
    const doc = await repo.findDocument(teamId, store.id, file.id);
    expect(doc).toMatchObject({ status: 'completed', lastErrorCode: null });
    expect((await repo.jobsFor(store.id, file.id)).map((j) => j.attempts)).toEqual([2]);
    // the chunks of one run, none left over from the run that died
    expect((await repo.documentChunks(store.id, file.id)).length).toBe(doc!.chunkCount);
    expect((await repo.loadVectors(store.id)).length).toBe(doc!.chunkCount);

    const ledger = await t.get(BillingRepository).listLedgerAscending(teamId);
    const charges = ledger.filter(
      (e) =>
        e.endpoint === 'knowledge-base ingestion' &&
        (JSON.parse(e.details ?? '{}') as { document_id?: string }).document_id === file.id,
    );
    expect(charges).toHaveLength(1);
    // the document's tokens (the chunker's count; the embedder's may differ by a token or two)
    expect(Math.abs(charges[0].promptTokens - doc!.tokens)).toBeLessThanOrEqual(doc!.tokens / 100);
    expect(charges[0].amountMicro).toBe(-charges[0].promptTokens * MICRO_PER_TOKEN);
    // the ledger replays to the balance
    const team = await t.get(BillingRepository).findTeam(teamId);
    expect(ledger.reduce((s, e) => s + e.amountMicro, 0)).toBe(team!.balanceMicro);
    expect(ledger.at(-1)!.balanceAfterMicro).toBe(team!.balanceMicro);
  });
});
