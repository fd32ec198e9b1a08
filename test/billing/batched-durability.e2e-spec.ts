/**
 * BILLING_DURABILITY=batched: a charge is applied in memory against the replica's credit grant and
 * written to the database with the next batch (BILLING_FLUSH_MS), off the response path. The money
 * guarantees, on a real database:
 * - no overdraft: two replicas, 200 concurrent requests on a small balance — spending is bounded by
 *   the grants, one ledger entry per answered request, the ledger replays to the balance;
 * - a graceful stop (app.close; SIGTERM of a built replica) writes every charge first, and the
 *   request log still has every request;
 * - a built replica killed with SIGKILL before it wrote its charges: its restart writes them as ONE
 *   ledger entry (`reconcile:<grant>`), bounded by its grant, exactly what its answers reported;
 *   reconciling the same journal again charges nothing.
 */
import { spawn, ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { BillingService } from '@app/billing';
import { BillingRepository } from '@app/billing/billing.repository';
import { BillingSpool } from '@app/billing/billing-spool';
import { RECONCILIATION_ENDPOINT } from '@app/billing/reconciliation.repository';
import { RequestLogRepository, RequestLogWriter } from '@app/request-log';
import { FakeOpenAI } from '../fakes';
import { AdminClient } from '../support/admin-client';
import { ADMIN_TOKEN, createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import { freePort } from '../support/private-redis';
import { UPSTREAM_KEYS, providerEnv } from '../chat/chat-helpers';
import { untilAnswering, waitFor } from '../support/until';

const BATCHED = { BILLING_DURABILITY: 'batched', BILLING_FLUSH_MS: '50', OPENAI_MAX_RETRIES: '0' };
/** a flush window longer than any test: charges stay in memory until a stop, a grant's return or a kill */
const HELD = { ...BATCHED, BILLING_FLUSH_MS: '60000' };
/** concurrent requests of the overdraft case (a shared 2-CPU machine answers them within the timeout) */
const N = 200;
const MAIN = join(__dirname, '../../dist/apps/api/src/main.js');

/** One chat completion; its charge in µRUB (x-gateway-cost-rub) and request id. */
async function chat(
  url: string,
  apiKey: string,
  maxTokens = 20,
): Promise<{ status: number; costMicro: number; id: string }> {
  const r = await fetch(`${url}/v1/chat/completions`, {
    signal: AbortSignal.timeout(60_000),
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
    body: JSON.stringify({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'hello there' }],
      max_tokens: maxTokens,
    }),
  });
  await r.arrayBuffer();
  return {
    status: r.status,
    costMicro: Math.round(Number(r.headers.get('x-gateway-cost-rub') ?? 0) * 1_000_000),
    id: r.headers.get('x-request-id')!,
  };
}

/** The team's ledger replays to its balance, which is not below zero. */
async function expectReplays(repo: BillingRepository, teamId: string): Promise<number> {
  const entries = await repo.listLedgerAscending(teamId);
  let running = 0;
  for (const e of entries) {
    running += e.amountMicro;
    expect(e.balanceAfterMicro).toBe(running);
  }
  const team = (await repo.findTeam(teamId))!;
  expect(team.balanceMicro).toBe(running);
  expect(team.balanceMicro).toBeGreaterThanOrEqual(0);
  return team.balanceMicro;
}

const charges = async (repo: BillingRepository, teamId: string) =>
  (await repo.listLedgerAscending(teamId)).filter((e) => e.kind === 'charge');

describe(`batched billing durability on ${backendKind()}`, () => {
  let openai: FakeOpenAI;
  let a: TestApp;
  let b: TestApp;
  let admin: AdminClient;

  beforeAll(async () => {
    openai = await FakeOpenAI.start({ apiKey: UPSTREAM_KEYS.openai });
    a = await createTestApp({ env: { ...providerEnv({ openai }), ...BATCHED, CREDIT_GRANT_TTL_SECONDS: '3' } });
    b = await createTestApp({
      env: { ...providerEnv({ openai }), ...BATCHED, CREDIT_GRANT_TTL_SECONDS: '3' },
      shareBackendWith: a,
    });
    admin = new AdminClient(a.url);
  }, 60_000);
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await openai?.close();
  });

  it('two replicas, 200 concurrent requests on a small balance: no overdraft, one charge per answer, grants returned', async () => {
    // each answer costs ≈ 150 µRUB: 0.02 RUB covers ≈ 130 of the 200
    const { teamId, apiKey } = await admin.teamWithKey(0.02, 'batched-small');
    const repo = a.get(BillingRepository);
    const start = (await repo.findTeam(teamId))!.balanceMicro;
    const results = await Promise.all(Array.from({ length: N }, (_, i) => chat(i % 2 ? b.url : a.url, apiKey, 2)));
    const ok = results.filter((r) => r.status === 200);
    expect(ok.length + results.filter((r) => r.status === 402).length).toBe(N);
    expect(ok.length).toBeGreaterThan(20);
    expect(results.some((r) => r.status === 402)).toBe(true);
    await a.get(BillingService).flushCharges();
    await b.get(BillingService).flushCharges();
    await waitFor(async () => (await repo.findTeam(teamId))!.reservedMicro === 0, 15_000);
    const balance = await expectReplays(repo, teamId);
    // each answered request charged once, exactly what its answer reported, within the balance
    const ledger = await charges(repo, teamId);
    expect(ledger).toHaveLength(ok.length);
    expect(new Set(ledger.map((e) => e.requestId))).toEqual(new Set(ok.map((r) => r.id)));
    const spent = ok.reduce((s, r) => s + r.costMicro, 0);
    expect(start - balance).toBe(spent);
    expect(spent).toBeLessThanOrEqual(start);
  }, 120_000);

  it('a charge is written with its batch, off the response path; a graceful stop writes every charge first', async () => {
    const c = await createTestApp({ env: { ...providerEnv({ openai }), ...HELD }, shareBackendWith: a });
    let closed = false;
    try {
      const { teamId, apiKey } = await admin.teamWithKey(100, 'batched-stop');
      const repo = a.get(BillingRepository);
      const start = (await repo.findTeam(teamId))!.balanceMicro;
      const answers = [];
      for (let i = 0; i < 10; i++) answers.push(await chat(c.url, apiKey));
      for (const r of answers) expect(r.status).toBe(200);
      // answered, charged in memory, not yet in the database
      expect(c.get(BillingService).unwrittenCharges).toBe(10);
      expect(await charges(repo, teamId)).toHaveLength(0);
      await c.close();
      closed = true;
      // the stop wrote them all and gave the grant back
      const ledger = await charges(repo, teamId);
      expect(ledger.map((e) => e.requestId).sort()).toEqual(answers.map((r) => r.id).sort());
      expect((await repo.findTeam(teamId))!.reservedMicro).toBe(0);
      const balance = await expectReplays(repo, teamId);
      expect(start - balance).toBe(answers.reduce((s, r) => s + r.costMicro, 0));
      // the request log has every request, with its cost
      await a.get(RequestLogWriter).flush();
      const logged = await a.get(RequestLogRepository).list({ teamId }, 100);
      expect(logged.map((r) => r.id).sort()).toEqual(answers.map((r) => r.id).sort());
      for (const r of answers) expect(logged.find((l) => l.id === r.id)!.costMicro).toBe(r.costMicro);
    } finally {
      if (!closed) await c.close();
    }
  }, 120_000);
});

const childTest = existsSync(MAIN) ? describe : describe.skip;

childTest(`batched billing on ${backendKind()}: a built replica stopped with SIGTERM, then killed with SIGKILL`, () => {
  let openai: FakeOpenAI;
  let a: TestApp;
  let child: ChildProcess | undefined;
  let dataDir: string;

  beforeAll(async () => {
    openai = await FakeOpenAI.start({ apiKey: UPSTREAM_KEYS.openai });
    a = await createTestApp({ env: { ...providerEnv({ openai }), OPENAI_MAX_RETRIES: '0' } });
    dataDir = mkdtempSync(join(tmpdir(), 'gw-batched-'));
  }, 60_000);
  afterAll(async () => {
    child?.kill('SIGKILL');
    child?.stderr?.destroy();
    await a?.close();
    await openai?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** A built replica on the shared database (SQLite: the shared DATA_DIR; Postgres: its own DATA_DIR). */
  async function startChild(): Promise<{ url: string; exited: Promise<void> }> {
    const port = String(await freePort());
    const proc = spawn(process.execPath, [MAIN], {
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        DATA_DIR: dataDir,
        ...a.backend.env,
        ...providerEnv({ openai }),
        ...HELD,
        ADMIN_TOKEN,
        PORT: port,
        HOST: '127.0.0.1',
        LOG_LEVEL: 'silent',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    child = proc;
    let stderr = '';
    proc.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
    const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    const url = `http://127.0.0.1:${port}`;
    await untilAnswering(url, { stderr: () => stderr });
    return { url, exited };
  }

  const journals = (dir: string): string[] => {
    const out: string[] = [];
    const walk = (d: string) => {
      for (const e of readdirSync(d, { withFileTypes: true })) {
        if (e.isDirectory()) walk(join(d, e.name));
        else if (e.name.startsWith('journal-')) out.push(join(d, e.name));
      }
    };
    walk(dir);
    return out;
  };

  it('SIGTERM loses nothing; after SIGKILL the unwritten charges come back as one reconciled entry, once', async () => {
    const { teamId, apiKey } = await new AdminClient(a.url).teamWithKey(100, 'batched-kill');
    const repo = a.get(BillingRepository);
    const start = (await repo.findTeam(teamId))!.balanceMicro;
    const journalDir = (a.backend.env.DATA_DIR as string | undefined) ?? dataDir;

    // 1. SIGTERM: every charge written before the replica exits; the request log has every request
    let replica = await startChild();
    const stopped = [];
    for (let i = 0; i < 8; i++) stopped.push(await chat(replica.url, apiKey));
    for (const r of stopped) expect(r.status).toBe(200);
    expect(await charges(repo, teamId)).toHaveLength(0);
    child!.kill('SIGTERM');
    await replica.exited;
    expect((await charges(repo, teamId)).map((e) => e.requestId).sort()).toEqual(stopped.map((r) => r.id).sort());
    expect((await repo.findTeam(teamId))!.reservedMicro).toBe(0);
    const logged = await a.get(RequestLogRepository).list({ teamId }, 100);
    expect(logged.map((r) => r.id).sort()).toEqual(stopped.map((r) => r.id).sort());

    // 2. SIGKILL with charges applied in memory only: the database still holds the grant
    replica = await startChild();
    const killed = [];
    for (let i = 0; i < 12; i++) killed.push(await chat(replica.url, apiKey));
    for (const r of killed) expect(r.status).toBe(200);
    child!.kill('SIGKILL');
    await replica.exited;
    expect(await charges(repo, teamId)).toHaveLength(stopped.length);
    const held = (await repo.findTeam(teamId))!.reservedMicro;
    expect(held).toBeGreaterThan(0);
    const [journal] = journals(journalDir);
    expect(journal).toBeDefined();
    const copy = join(dataDir, 'journal-copy');
    copyFileSync(journal, copy);

    // 3. the restarted replica (or any replica sharing the directory) reconciles: ONE ledger entry
    replica = await startChild();
    const lost = killed.reduce((s, r) => s + r.costMicro, 0);
    await waitFor(async () => (await charges(repo, teamId)).length === stopped.length + 1, 60_000, 200);
    const entry = (await charges(repo, teamId)).at(-1)!;
    expect(entry.endpoint).toBe(RECONCILIATION_ENDPOINT);
    expect(entry.reference).toMatch(/^reconcile:/);
    expect(entry.amountMicro).toBe(-lost);
    // bounded by the grant the killed replica held
    expect(lost).toBeLessThanOrEqual(held);
    expect(JSON.parse(entry.details!).request_ids.sort()).toEqual(killed.map((r) => r.id).sort());
    await waitFor(async () => (await repo.findTeam(teamId))!.reservedMicro === 0, 30_000, 200);
    child!.kill('SIGTERM');
    await replica.exited;
    child = undefined;

    // 4. the same journal reconciled again (a replica that died before removing it): nothing charged twice
    const spoolDir = a.get(BillingSpool).dir;
    const again = join(spoolDir, basename(journal));
    mkdirSync(spoolDir, { recursive: true });
    copyFileSync(copy, again);
    await a.get(BillingService).reconcileJournals();
    expect(existsSync(again)).toBe(false);
    expect(await charges(repo, teamId)).toHaveLength(stopped.length + 1);
    const balance = await expectReplays(repo, teamId);
    expect(start - balance).toBe(stopped.reduce((s, r) => s + r.costMicro, 0) + lost);
    expect((await repo.findTeam(teamId))!.reservedMicro).toBe(0);
  }, 400_000);
});
