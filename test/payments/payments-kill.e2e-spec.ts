/**
 * YooKassa payments credited exactly once when a replica is killed with SIGKILL while crediting.
 * A built gateway (dist) runs as a child process on the same database as an in-process replica;
 * 20 paid payments are notified to the child concurrently while YooKassa answers slowly, the child
 * is killed as soon as its first credit is committed, YooKassa redelivers every notification to
 * the surviving replica (unanswered ones are retried; answered ones come again too) while its
 * reconciliation polls the rest. Every payment ends succeeded with one ledger entry under
 * `yookassa:<id>`, the balance is the start plus the amounts paid, and the ledger replays to it.
 * Skipped when dist is absent (CI builds it before the tests).
 */
import { spawn, ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { BillingRepository } from '@app/billing/billing.repository';
import { FakeYooKassa } from '../fakes/fake-yookassa';
import { AdminClient } from '../support/admin-client';
import { ADMIN_TOKEN, createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import { freePort } from '../support/private-redis';
import { admin } from '../accounts/accounts-helpers';
import { untilAnswering, waitFor } from '../support/until';

const NOTIFY = '/api/v1/payments/yookassa/notifications';
const MAIN = join(__dirname, '../../dist/apps/api/src/main.js');
const N = 20;

const paymentsTest = existsSync(MAIN) ? describe : describe.skip;

paymentsTest(`payments on ${backendKind()}: a replica killed with SIGKILL mid-credit`, () => {
  let yk: FakeYooKassa;
  let a: TestApp;
  let child: ChildProcess | undefined;
  let dataDir: string;
  const env = (reconcileMs: number) => ({
    YOOKASSA_SHOP_ID: yk.shopId,
    YOOKASSA_SECRET_KEY: yk.secretKey,
    YOOKASSA_BASE_URL: yk.baseUrl,
    PAYMENTS_RETURN_URL: 'https://gateway.example.com/billing',
    PAYMENTS_RECONCILE_MS: String(reconcileMs),
  });

  beforeAll(async () => {
    yk = await FakeYooKassa.start({ shopId: '501234', secretKey: 'test_Fh8hUAVVBGUGbjmlzba6TB0iyUbos_lueTHE-axOwM0' });
    // the surviving replica polls a pending payment 4 s after its creation: after the kill below
    a = await createTestApp({ env: env(4_000) });
    dataDir = mkdtempSync(join(tmpdir(), 'gw-paykill-'));
  }, 60_000);
  afterAll(async () => {
    child?.kill('SIGKILL');
    child?.stderr?.destroy();
    await a?.close();
    await yk?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('every payment is credited once: by the killed replica, the redelivered notification or the reconciliation', async () => {
    const port = String(await freePort());
    child = spawn(process.execPath, [MAIN], {
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        // the embedded backend's DATA_DIR holds the shared database; on Postgres it is private
        DATA_DIR: dataDir,
        ...a.backend.env,
        // the child's own reconciliation stays out of the way: it credits through notifications only
        ...env(600_000),
        ADMIN_TOKEN,
        PORT: port,
        HOST: '127.0.0.1',
        LOG_LEVEL: 'silent',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
    const exited = new Promise<void>((resolve) => child!.once('exit', () => resolve()));
    const url = `http://127.0.0.1:${port}`;
    await untilAnswering(url, { path: '/health', stderr: () => stderr });

    const teamId = (await new AdminClient(a.url).createTeam('paykill', 10)).id;
    const repo = a.get(BillingRepository);
    const credits = async () =>
      (await repo.listLedgerAscending(teamId)).filter((e) => e.reference?.startsWith('yookassa:'));
    const start = (await repo.findTeam(teamId))!.balanceMicro;

    // N payments of different amounts, paid at YooKassa
    const amounts = Array.from({ length: N }, (_, i) => 100 + 37 * i);
    const created = await Promise.all(
      amounts.map((rub) => admin(request(a.url).post(`/api/v1/teams/${teamId}/payments`)).send({ amount_rub: rub })),
    );
    for (const r of created) expect(r.status).toBe(201);
    const remoteIds = created.map((r) => yk.byLocalId(r.body.id as string)!.id);
    for (const id of remoteIds) yk.succeed(id);

    // YooKassa answers each poll in 100–2000 ms: credits are in flight when the child dies
    yk.getDelayMs = () => 100 + Math.floor(Math.random() * 1_900);
    const delivered = Promise.all(
      remoteIds.map((id) =>
        yk.notify(id, 'payment.succeeded', {}, `${url}${NOTIFY}`).then(
          (status) => status,
          () => 0, // the replica died before answering
        ),
      ),
    );
    await waitFor(async () => (await credits()).length > 0, 30_000, 10);
    child.kill('SIGKILL');
    await exited;
    const atKill = (await credits()).length;
    const answered = (await delivered).filter((s) => s === 200).length;
    // the kill came mid-way: some credits committed, some not
    expect(atKill).toBeGreaterThan(0);
    expect(atKill).toBeLessThan(N);
    expect(answered).toBeLessThan(N);

    // YooKassa redelivers every notification to the surviving replica (concurrently with its
    // reconciliation); each is answered 200
    yk.getDelayMs = () => Math.floor(Math.random() * 200);
    const redelivered = await Promise.all(
      remoteIds.map((id) => yk.notify(id, 'payment.succeeded', {}, `${a.url}${NOTIFY}`)),
    );
    expect(redelivered).toEqual(Array(N).fill(200));
    await waitFor(async () => {
      const res = await admin(request(a.url).get(`/api/v1/admin/payments?limit=100`));
      return (
        (res.body.data as { team_id: string; status: string }[]).filter(
          (p) => p.team_id === teamId && p.status === 'succeeded',
        ).length === N
      );
    }, 90_000);

    // the balance is the start plus the amounts paid, and the ledger replays to it
    const sum = amounts.reduce((s, v) => s + v, 0) * 1_000_000;
    const all = await repo.listLedgerAscending(teamId);
    let running = 0;
    for (const e of all) {
      running += e.amountMicro;
      expect(e.balanceAfterMicro).toBe(running);
    }
    const team = (await repo.findTeam(teamId))!;
    expect(team.balanceMicro).toBe(running);
    expect(team.balanceMicro).toBe(start + sum);

    // one ledger entry per YooKassa payment, the amount paid
    const entries = await credits();
    expect(entries.map((e) => e.reference).sort()).toEqual(remoteIds.map((id) => `yookassa:${id}`).sort());
    for (const [i, id] of remoteIds.entries())
      expect(entries.find((e) => e.reference === `yookassa:${id}`)!.amountMicro).toBe(amounts[i] * 1_000_000);
    const listed = (await admin(request(a.url).get(`/api/v1/admin/payments?limit=100`))).body.data as {
      id: string;
      status: string;
      credited_rub: number;
    }[];
    for (const r of created)
      expect(listed.find((x) => x.id === r.body.id)).toMatchObject({
        status: 'succeeded',
        credited_rub: r.body.amount_rub,
      });
  }, 300_000);
});
