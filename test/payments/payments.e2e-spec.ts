/**
 * Self-service top-ups through a fake YooKassa, on two replicas sharing one database: creation
 * (Basic auth, Idempotence-Key, amount and metadata on the wire), notifications never trusted
 * (forged ids, bodies saying "succeeded" while YooKassa says pending, tampered amounts), exactly one
 * credit under 20 duplicate notifications across both replicas, a lost notification credited by the
 * reconciliation, YooKassa down during creation, and the ledger replaying to the balance.
 */
import request from 'supertest';
import { BillingRepository } from '@app/billing/billing.repository';
import { FakeYooKassa } from '../fakes/fake-yookassa';
import { AdminClient } from '../support/admin-client';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import { admin, as, Browser, joinTeam } from '../accounts/accounts-helpers';
import { waitFor } from '../support/until';

const PASSWORD = 'correct horse battery staple';
const NOTIFY = '/api/v1/payments/yookassa/notifications';

/** The team's ledger replays to its balance; answers the balance (µRUB) and the ledger. */
async function replay(t: TestApp, teamId: string) {
  const repo = t.get(BillingRepository);
  const entries = await repo.listLedgerAscending(teamId);
  let running = 0;
  for (const e of entries) {
    running += e.amountMicro;
    expect(e.balanceAfterMicro).toBe(running);
  }
  const team = (await repo.findTeam(teamId))!;
  expect(team.balanceMicro).toBe(running);
  return { balanceMicro: team.balanceMicro, entries };
}

describe(`payments on ${backendKind()} (two replicas on one database)`, () => {
  let yk: FakeYooKassa;
  let a: TestApp;
  let b: TestApp;
  let client: AdminClient;
  let teamId: string;
  let owner: Browser;
  let n = 0;

  beforeAll(async () => {
    yk = await FakeYooKassa.start({ shopId: '501234', secretKey: 'test_Fh8hUAVVBGUGbjmlzba6TB0iyUbos_lueTHE-axOwM0' });
    const env = {
      YOOKASSA_SHOP_ID: yk.shopId,
      YOOKASSA_SECRET_KEY: yk.secretKey,
      YOOKASSA_BASE_URL: yk.baseUrl,
      PAYMENTS_RETURN_URL: 'https://gateway.example.com/billing',
      PAYMENTS_RECONCILE_MS: '300',
      PAYMENTS_RECEIPTS: 'true',
      PAYMENTS_VAT_CODE: '4',
    };
    a = await createTestApp({ env });
    b = await createTestApp({ env, shareBackendWith: a });
    yk.notifyUrl = `${a.url}${NOTIFY}`;
    client = new AdminClient(a.url);
  }, 60_000);
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await yk?.close();
  });

  beforeEach(async () => {
    teamId = (await client.createTeam(`pay-${++n}`, 10)).id;
    owner = await joinTeam(a.url, teamId, `owner${n}@example.com`, 'owner', PASSWORD);
  });

  const pay = (amount: number, url = a.url) =>
    as(url, owner).post(`/api/v1/teams/${teamId}/payments`).send({ amount_rub: amount });
  const paymentOf = async (id: string, url = a.url) => {
    const res = await as(url, owner).get(`/api/v1/teams/${teamId}/payments/${id}`);
    expect(res.status).toBe(200);
    return res.body as { status: string; credited_rub: number | null; cancellation_reason: string | null };
  };

  it('creates a YooKassa payment: Basic auth, Idempotence-Key, amount, capture, redirect, metadata, receipt', async () => {
    const res = await pay(1500);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'pending', amount_rub: 1500, team_id: teamId });
    const remote = yk.byLocalId(res.body.id)!;
    expect(res.body.confirmation_url).toBe(remote.confirmation.confirmation_url);
    const call = yk.requests.filter((r) => r.method === 'POST' && r.path === '/v3/payments').pop()!;
    expect(call.headers.authorization).toBe(`Basic ${Buffer.from(`${yk.shopId}:${yk.secretKey}`).toString('base64')}`);
    expect(call.headers['idempotence-key']).toBe(res.body.id);
    expect(call.body).toMatchObject({
      amount: { value: '1500.00', currency: 'RUB' },
      capture: true,
      confirmation: { type: 'redirect' },
      metadata: { team_id: teamId, payment_id: res.body.id },
      receipt: {
        customer: { email: `owner${n}@example.com` },
        items: [{ description: 'Пополнение баланса', quantity: '1.00', amount: { value: '1500.00' }, vat_code: 4 }],
      },
    });
    expect((call.body as { confirmation: { return_url: string } }).confirmation.return_url).toMatch(
      /^https:\/\/gateway\.example\.com\/billing\?team_id=.+&payment_id=/,
    );
    // the same Idempotence-Key answers the same payment at YooKassa
    const again = await fetch(`${yk.baseUrl}/payments`, {
      method: 'POST',
      headers: {
        authorization: call.headers.authorization!,
        'idempotence-key': res.body.id,
        'content-type': 'application/json',
      },
      body: JSON.stringify(call.body),
    });
    expect(((await again.json()) as { id: string }).id).toBe(remote.id);

    // bad amounts are refused before YooKassa is called; an API key, a viewer may not pay
    const creations = () => yk.requests.filter((r) => r.method === 'POST').length;
    const before = creations();
    expect((await pay(99)).body.error.code).toBe('invalid_amount');
    expect((await pay(1_000_001)).status).toBe(400);
    expect((await pay(10.005)).status).toBe(400);
    const { api_key } = await client.createKey(teamId);
    const byKey = await request(a.url)
      .post(`/api/v1/teams/${teamId}/payments`)
      .set('api-key', api_key)
      .send({ amount_rub: 500 });
    expect(byKey.status).toBe(401);
    const viewer = await joinTeam(a.url, teamId, `viewer${n}@example.com`, 'viewer', PASSWORD);
    const byViewer = await as(a.url, viewer).post(`/api/v1/teams/${teamId}/payments`).send({ amount_rub: 500 });
    expect(byViewer.status).toBe(403);
    expect((await as(a.url, viewer).get(`/api/v1/teams/${teamId}/payments`)).status).toBe(200);
    expect(creations()).toBe(before);
  });

  it('forged notifications credit nothing: unknown id, "succeeded" while YooKassa says pending, tampered amount', async () => {
    const start = (await replay(a, teamId)).balanceMicro;
    // unknown id
    const unknown = await request(b.url)
      .post(NOTIFY)
      .send({
        type: 'notification',
        event: 'payment.succeeded',
        object: {
          id: '2d5a7e1f-000f-5000-9000-1b3c4d5e6f70',
          status: 'succeeded',
          paid: true,
          amount: { value: '1000000.00', currency: 'RUB' },
        },
      });
    expect(unknown.status).toBe(404);
    expect((await request(b.url).post(NOTIFY).send({ type: 'notification' })).status).toBe(400);

    // a known id, body says succeeded, YooKassa says pending
    const created = await pay(1500);
    const remote = yk.byLocalId(created.body.id)!;
    for (const url of [a.url, b.url])
      expect(
        await yk.notify(remote.id, 'payment.succeeded', { status: 'succeeded', paid: true }, `${url}${NOTIFY}`),
      ).toBe(200);
    expect((await paymentOf(created.body.id)).status).toBe('pending');
    expect((await replay(a, teamId)).balanceMicro).toBe(start);

    // paid at YooKassa; the notification claims a far larger amount: the amount YooKassa reports counts
    yk.succeed(remote.id);
    const tampered = await yk.notify(remote.id, 'payment.succeeded', {
      amount: { value: '999999.00', currency: 'RUB' },
      income_amount: { value: '999999.00', currency: 'RUB' },
    });
    expect(tampered).toBe(200);
    const after = await paymentOf(created.body.id);
    expect(after).toMatchObject({ status: 'succeeded', credited_rub: 1500 });
    expect((await replay(a, teamId)).balanceMicro).toBe(start + 1_500_000_000);
  });

  it('20 duplicate notifications across two replicas credit once', async () => {
    const start = (await replay(a, teamId)).balanceMicro;
    const created = await pay(2500, b.url);
    const remote = yk.byLocalId(created.body.id)!;
    yk.succeed(remote.id);
    const statuses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        yk.notify(remote.id, 'payment.succeeded', {}, `${i % 2 ? a.url : b.url}${NOTIFY}`),
      ),
    );
    expect(statuses).toEqual(Array(20).fill(200));
    const { balanceMicro, entries } = await replay(b, teamId);
    expect(balanceMicro).toBe(start + 2_500_000_000);
    expect(entries.filter((e) => e.reference === `yookassa:${remote.id}`)).toHaveLength(1);
    expect(await paymentOf(created.body.id, b.url)).toMatchObject({ status: 'succeeded', credited_rub: 2500 });
    // a late notification after the credit changes nothing
    expect(await yk.notify(remote.id)).toBe(200);
    expect((await replay(a, teamId)).balanceMicro).toBe(start + 2_500_000_000);
  });

  it('a lost notification is credited by the reconciliation; a canceled payment is marked with its reason', async () => {
    const start = (await replay(a, teamId)).balanceMicro;
    const paid = await pay(700);
    const canceled = await pay(800);
    yk.succeed(yk.byLocalId(paid.body.id)!.id); // no notification sent
    yk.cancel(yk.byLocalId(canceled.body.id)!.id, 'expired_on_confirmation');
    await waitFor(async () => (await paymentOf(paid.body.id)).status === 'succeeded');
    await waitFor(async () => (await paymentOf(canceled.body.id)).status === 'canceled');
    expect(await paymentOf(canceled.body.id)).toMatchObject({
      cancellation_reason: 'expired_on_confirmation',
      credited_rub: null,
    });
    expect((await replay(a, teamId)).balanceMicro).toBe(start + 700_000_000);

    // a credited payment canceled afterwards (refund in YooKassa's cabinet) is shown, not debited
    yk.cancel(yk.byLocalId(paid.body.id)!.id, 'refunded_by_merchant', 'merchant');
    expect(await yk.notify(yk.byLocalId(paid.body.id)!.id, 'payment.canceled')).toBe(200);
    expect(await paymentOf(paid.body.id)).toMatchObject({ status: 'canceled', credited_rub: 700 });
    expect((await replay(a, teamId)).balanceMicro).toBe(start + 700_000_000);
  });

  it('YooKassa down during creation: 502, nothing stored as paid; the list pages by cursor', async () => {
    const start = (await replay(a, teamId)).balanceMicro;
    yk.down = true;
    const res = await pay(1000);
    yk.down = false;
    expect(res.status).toBe(502);
    expect(res.body.error.code).toBe('payment_provider_error');
    for (let i = 0; i < 2; i++) expect((await pay(100 + i)).status).toBe(201);
    const page1 = await as(a.url, owner).get(`/api/v1/teams/${teamId}/payments?limit=2`);
    expect(page1.status).toBe(200);
    expect(page1.body.data.map((p: { amount_rub: number }) => p.amount_rub)).toEqual([101, 100]);
    expect(page1.body.has_more).toBe(true);
    const page2 = await as(a.url, owner).get(
      `/api/v1/teams/${teamId}/payments?limit=2&after=${page1.body.next_cursor}`,
    );
    expect(page2.body.data).toEqual([
      expect.objectContaining({ amount_rub: 1000, status: 'failed', credited_rub: null }),
    ]);
    expect(page2.body.has_more).toBe(false);
    expect((await replay(a, teamId)).balanceMicro).toBe(start);
    // operators see every team's payments
    const all = await admin(request(a.url).get('/api/v1/admin/payments?limit=100'));
    expect(all.status).toBe(200);
    expect(all.body.data.some((p: { team_id: string }) => p.team_id === teamId)).toBe(true);
  });

  it('redemption codes: made once, hashed, redeemed once across teams and replicas; used / expired / invalid', async () => {
    const made = await admin(request(a.url).post('/api/v1/admin/redemption-codes')).send({
      amount_rub: 300,
      count: 3,
      note: 'promo',
    });
    expect(made.status).toBe(201);
    const codes = made.body.codes as { id: string; code: string }[];
    expect(codes).toHaveLength(3);
    for (const c of codes) expect(c.code).toMatch(/^RC-[23456789ABCDEFGHJKMNPQRSTUVWXYZ]{20}$/);
    const start = (await replay(a, teamId)).balanceMicro;

    // the same code raced by two teams on two replicas: one credit
    const other = (await client.createTeam(`pay-other-${n}`, 0)).id;
    const race = await Promise.all([
      as(a.url, owner).post(`/api/v1/teams/${teamId}/redeem`).send({ code: codes[0].code }),
      admin(request(b.url).post(`/api/v1/teams/${other}/redeem`)).send({ code: codes[0].code.toLowerCase() }),
    ]);
    expect(race.map((r) => r.status).sort()).toEqual([201, 409]);
    const credited = (await replay(a, teamId)).balanceMicro - start + (await replay(a, other)).balanceMicro;
    expect(credited).toBe(300_000_000);

    const member = await joinTeam(a.url, teamId, `member${n}@example.com`, 'member', PASSWORD);
    const again = await as(b.url, member).post(`/api/v1/teams/${teamId}/redeem`).send({ code: codes[0].code });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('code_used');
    const wrong = await as(b.url, member)
      .post(`/api/v1/teams/${teamId}/redeem`)
      .send({ code: 'RC-AAAAAAAAAAAAAAAAAAAA' });
    expect(wrong.status).toBe(404);
    expect(wrong.body.error.code).toBe('code_invalid');
    const viewer = await joinTeam(a.url, teamId, `viewer-c${n}@example.com`, 'viewer', PASSWORD);
    expect((await as(a.url, viewer).post(`/api/v1/teams/${teamId}/redeem`).send({ code: codes[1].code })).status).toBe(
      403,
    );

    // disabled → invalid; a used code cannot be disabled
    expect((await admin(request(a.url).delete(`/api/v1/admin/redemption-codes/${codes[2].id}`))).status).toBe(200);
    expect((await as(a.url, member).post(`/api/v1/teams/${teamId}/redeem`).send({ code: codes[2].code })).status).toBe(
      404,
    );
    expect((await admin(request(a.url).delete(`/api/v1/admin/redemption-codes/${codes[0].id}`))).status).toBe(409);

    const list = await admin(request(a.url).get('/api/v1/admin/redemption-codes'));
    const batch = list.body.data.find((x: { batch_id: string }) => x.batch_id === made.body.batch_id);
    expect(batch).toMatchObject({ count: 3, used: 1, note: 'promo', amount_rub: 300 });
    expect(JSON.stringify(list.body)).not.toContain(codes[1].code);

    // codes expire
    const soon = await admin(request(a.url).post('/api/v1/admin/redemption-codes')).send({
      amount_rub: 50,
      count: 1,
      expires_at: new Date(Date.now() + 1000).toISOString(),
    });
    await new Promise((r) => setTimeout(r, 1100));
    const expired = await as(a.url, member)
      .post(`/api/v1/teams/${teamId}/redeem`)
      .send({ code: soon.body.codes[0].code });
    expect(expired.status).toBe(410);
    expect(expired.body.error.code).toBe('code_expired');
    expect((await replay(a, teamId)).balanceMicro - start).toBeLessThanOrEqual(300_000_000);
  });

  it('failed code attempts are throttled per user like sign-in (across replicas where Redis holds the counts)', async () => {
    const member = await joinTeam(a.url, teamId, `guesser${n}@example.com`, 'member', PASSWORD);
    let last = 0;
    for (let i = 0; i < 12; i++) {
      const r = await as(i % 2 && backendKind() === 'postgres' ? b.url : a.url, member)
        .post(`/api/v1/teams/${teamId}/redeem`)
        .send({ code: `RC-${'B'.repeat(19)}${i % 10}` });
      last = r.status;
      if (r.status === 429) {
        expect(Number(r.headers['retry-after'])).toBeGreaterThan(0);
        break;
      }
      expect(r.status).toBe(404);
    }
    expect(last).toBe(429);
  });
});

describe(`payments disabled on ${backendKind()}`, () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
  }, 60_000);
  afterAll(async () => app?.close());

  it('answers 404 payments_disabled and tells the console', async () => {
    const team = await new AdminClient(app.url).createTeam('off', 0);
    const settings = await admin(request(app.url).get('/api/v1/payments/settings'));
    expect(settings.status).toBe(200);
    expect(settings.body.enabled).toBe(false);
    const res = await admin(request(app.url).post(`/api/v1/teams/${team.id}/payments`)).send({ amount_rub: 500 });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('payments_disabled');
    expect(
      (
        await request(app.url)
          .post(NOTIFY)
          .send({ object: { id: 'x' } })
      ).body.error.code,
    ).toBe('payments_disabled');
  });
});
