import request from 'supertest';
import { AdminClient } from './support/admin-client';
import { ManualClock } from './support/manual-clock';
import { ADMIN_TOKEN, createTestApp, TestApp } from './support/test-app';
import { backendKind } from './support/test-env';

const admin = (r: request.Test) => r.set('authorization', `Bearer ${ADMIN_TOKEN}`);

function expectErrorShape(body: unknown, type: string, param: string | null = null): void {
  expect(body).toEqual({ error: { message: expect.any(String), type, code: expect.anything(), param } });
}

describe(`foundation over HTTP on ${backendKind()}`, () => {
  let t: TestApp;
  let adminClient: AdminClient;
  const clock = new ManualClock();

  beforeAll(async () => {
    t = await createTestApp({
      clock,
      env: { BOOTSTRAP_API_KEY: 'sk-bootstrap-key-for-tests-000000', BOOTSTRAP_BALANCE_RUB: '250.5' },
    });
    adminClient = new AdminClient(t.url);
  });
  afterAll(() => t?.close());

  it('admin flow: create team, key, top-up, balance', async () => {
    const team = await admin(request(t.url).post('/api/v1/admin/teams')).send({ name: 'acme', balance_rub: 100 });
    expect(team.status).toBe(201);
    expect(team.body).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), name: 'acme', balance_rub: 100 });

    const got = await admin(request(t.url).get(`/api/v1/admin/teams/${team.body.id}`));
    expect(got.body).toEqual({
      id: team.body.id,
      name: 'acme',
      balance_rub: 100,
      reserved_rub: 0,
      created_at: expect.any(String),
      rpm_limit: null,
      tpm_limit: null,
      request_log_bodies: 'metadata',
      request_log_retention_days: null,
      request_log_body_retention_days: null,
      mcp_adhoc_servers: false,
    });

    const key = await admin(request(t.url).post(`/api/v1/admin/teams/${team.body.id}/api-keys`)).send({
      name: 'backend',
    });
    expect(key.status).toBe(201);
    expect(key.body).toEqual({
      id: expect.any(String),
      api_key: expect.stringMatching(/^sk-[A-Za-z0-9_-]{43}$/),
      prefix: key.body.api_key.slice(0, 11),
      name: 'backend',
      created_at: expect.any(String),
      expires_at: null,
      allowed_models: [],
      allowed_mcp_tools: [],
      data_policy: null,
    });

    const top = await admin(request(t.url).post(`/api/v1/admin/teams/${team.body.id}/top-ups`)).send({
      amount_rub: 50.25,
      reference: 'pay-1',
    });
    expect(top.status).toBe(200);
    expect(top.body).toEqual({ balance_rub: 150.25, applied: true });
    const repeat = await admin(request(t.url).post(`/api/v1/admin/teams/${team.body.id}/top-ups`)).send({
      amount_rub: 50.25,
      reference: 'pay-1',
    });
    expect(repeat.body).toEqual({ balance_rub: 150.25, applied: false });

    const bal = await request(t.url).get('/api/v1/balance').set('api-key', key.body.api_key);
    expect(bal.status).toBe(200);
    expect(bal.body).toEqual({
      team_id: team.body.id,
      balance_rub: 150.25,
      reserved_rub: 0,
      available_rub: 150.25,
      currency: 'RUB',
    });

    const usage = await request(t.url).get('/api/v1/usage?limit=1').set('api-key', key.body.api_key);
    expect(usage.status).toBe(200);
    expect(usage.body.data).toHaveLength(1);
    expect(usage.body.data[0]).toMatchObject({
      kind: 'top_up',
      reference: 'pay-1',
      amount_rub: 50.25,
      balance_after_rub: 150.25,
    });
    expect(usage.body.has_more).toBe(true);
    const page2 = await request(t.url)
      .get(`/api/v1/usage?limit=5&before=${usage.body.next_before}`)
      .set('api-key', key.body.api_key);
    expect(page2.body.data.map((e: { reference: string }) => e.reference)).toEqual(['opening-balance']);
    expect(page2.body.has_more).toBe(false);
  });

  it('accepts the key in all three header forms on every endpoint', async () => {
    const { apiKey, teamId } = await adminClient.teamWithKey(10);
    for (const [header, value] of [
      ['api-key', apiKey],
      ['authorization', `Bearer ${apiKey}`],
      ['authorization', `api-key ${apiKey}`],
    ]) {
      for (const path of ['/api/v1/balance', '/api/v1/usage']) {
        const res = await request(t.url).get(path).set(header, value);
        expect(res.status).toBe(200);
        if (path === '/api/v1/balance') expect(res.body.team_id).toBe(teamId);
      }
    }
  });

  it('401 for a missing, unknown or malformed key, in the error shape', async () => {
    const missing = await request(t.url).get('/api/v1/balance');
    expect(missing.status).toBe(401);
    expectErrorShape(missing.body, 'authentication_error');
    expect(missing.body.error.code).toBe('missing_api_key');
    const unknown = await request(t.url).get('/api/v1/balance').set('authorization', 'Bearer sk-not-a-real-key');
    expect(unknown.status).toBe(401);
    expect(unknown.body.error.code).toBe('invalid_api_key');
    const basic = await request(t.url).get('/api/v1/balance').set('authorization', 'Basic Zm9vOmJhcg==');
    expect(basic.status).toBe(401);
  });

  it('revocation: immediate on this replica, within 5 s on another replica', async () => {
    const clockB = new ManualClock();
    const b = await createTestApp({ clock: clockB, shareBackendWith: t });
    try {
      const { apiKey, keyId } = await adminClient.teamWithKey(1);
      expect((await request(t.url).get('/api/v1/balance').set('api-key', apiKey)).status).toBe(200);
      expect((await request(b.url).get('/api/v1/balance').set('api-key', apiKey)).status).toBe(200); // B caches it

      const del = await admin(request(t.url).delete(`/api/v1/admin/api-keys/${keyId}`));
      expect(del.status).toBe(204);
      const onA = await request(t.url).get('/api/v1/balance').set('api-key', apiKey);
      expect(onA.status).toBe(401);
      expect(onA.body.error.code).toBe('revoked_api_key');

      clockB.advance(5_001); // B's local cache entry (≤ 5 s) has expired
      const onB = await request(b.url).get('/api/v1/balance').set('api-key', apiKey);
      expect(onB.status).toBe(401);
      expect(onB.body.error.code).toBe('revoked_api_key');
    } finally {
      await b.close();
    }
  });

  it('admin API: 401 with a wrong token, 404 for unknown ids, 400 naming the field', async () => {
    const wrong = await request(t.url)
      .post('/api/v1/admin/teams')
      .set('authorization', 'Bearer nope')
      .send({ name: 'x' });
    expect(wrong.status).toBe(401);
    expectErrorShape(wrong.body, 'authentication_error');

    const missingTeam = await admin(request(t.url).get('/api/v1/admin/teams/00000000-0000-4000-8000-000000000000'));
    expect(missingTeam.status).toBe(404);
    expectErrorShape(missingTeam.body, 'not_found_error', 'id');
    const badId = await admin(request(t.url).get('/api/v1/admin/teams/not-a-uuid'));
    expect(badId.status).toBe(404);
    const keyForMissing = await admin(
      request(t.url).post('/api/v1/admin/teams/00000000-0000-4000-8000-000000000000/api-keys'),
    ).send({});
    expect(keyForMissing.status).toBe(404);
    const revokeMissing = await admin(
      request(t.url).delete('/api/v1/admin/api-keys/00000000-0000-4000-8000-000000000000'),
    );
    expect(revokeMissing.status).toBe(404);

    const noName = await admin(request(t.url).post('/api/v1/admin/teams')).send({ balance_rub: 5 });
    expect(noName.status).toBe(400);
    expectErrorShape(noName.body, 'invalid_request_error', 'name');
    const negative = await admin(request(t.url).post('/api/v1/admin/teams')).send({ name: 'n', balance_rub: -1 });
    expect(negative.status).toBe(400);
    expect(negative.body.error.param).toBe('balance_rub');
    const zeroTopUp = await admin(
      request(t.url).post('/api/v1/admin/teams/00000000-0000-4000-8000-000000000000/top-ups'),
    ).send({ amount_rub: 0 });
    expect(zeroTopUp.status).toBe(400);
    expect(zeroTopUp.body.error.param).toBe('amount_rub');
  });

  it('malformed JSON is a 400, an oversized body a 413, unknown routes a 404 — all in the error shape', async () => {
    const bad = await admin(request(t.url).post('/api/v1/admin/teams'))
      .set('content-type', 'application/json')
      .send('{"name": ');
    expect(bad.status).toBe(400);
    expectErrorShape(bad.body, 'invalid_request_error');

    const big = await admin(request(t.url).post('/api/v1/admin/teams'))
      .set('content-type', 'application/json')
      .send(JSON.stringify({ name: 'x'.repeat(t.config.bodyLimitBytes + 10) }));
    expect(big.status).toBe(413);
    expectErrorShape(big.body, 'request_too_large');

    const unknown = await request(t.url).get('/api/v1/nothing-here');
    expect(unknown.status).toBe(404);
    expectErrorShape(unknown.body, 'not_found_error');
  });

  it('x-request-id: echoed when sent, generated otherwise', async () => {
    const echoed = await request(t.url).get('/health').set('x-request-id', 'my-trace-123');
    expect(echoed.headers['x-request-id']).toBe('my-trace-123');
    const generated = await request(t.url).get('/api/v1/balance');
    expect(generated.headers['x-request-id']).toMatch(/^req_[0-9a-f]{32}$/);
  });

  it('health and readiness', async () => {
    expect((await request(t.url).get('/health')).body).toEqual({ status: 'ok' });
    const ready = await request(t.url).get('/ready');
    expect(ready.status).toBe(200);
    expect(ready.body.checks.database).toEqual({
      kind: backendKind() === 'postgres' ? 'postgres' : 'sqlite',
      ok: true,
    });
    expect(ready.body.checks.cache.ok).toBe(true);
  });

  it('bootstrap key works and is idempotent across restarts and replicas', async () => {
    const key = 'sk-bootstrap-key-for-tests-000000';
    const bal = await request(t.url).get('/api/v1/balance').set('api-key', key);
    expect(bal.status).toBe(200);
    expect(bal.body.balance_rub).toBe(250.5);
    // a second replica with the same bootstrap settings starting on the same database changes nothing
    const again = await createTestApp({
      shareBackendWith: t,
      env: { BOOTSTRAP_API_KEY: key, BOOTSTRAP_BALANCE_RUB: '250.5' },
    });
    await again.close();
    const after = await request(t.url).get('/api/v1/balance').set('api-key', key);
    expect(after.body).toEqual(bal.body);
  });

  it('swagger JSON lists the routes and the three key forms', async () => {
    const res = await request(t.url).get('/docs-json');
    expect(res.status).toBe(200);
    const paths = Object.keys(res.body.paths);
    for (const p of [
      '/api/v1/balance',
      '/api/v1/usage',
      '/api/v1/admin/teams',
      '/api/v1/admin/teams/{id}',
      '/api/v1/admin/teams/{id}/api-keys',
      '/api/v1/admin/api-keys/{id}',
      '/api/v1/admin/teams/{id}/top-ups',
      '/health',
      '/ready',
    ]) {
      expect(paths).toContain(p);
    }
    expect(Object.keys(res.body.components.securitySchemes)).toEqual(
      expect.arrayContaining(['api-key', 'bearer', 'authorization-api-key', 'admin']),
    );
    expect(res.body.components.schemas.CreateTeamDto.properties.name.example).toBe('search-team');
    const ui = await request(t.url).get('/docs/');
    expect(ui.status).toBe(200);
    expect(ui.text).toContain('swagger');
  });
});

describe('admin API disabled without ADMIN_TOKEN', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { ADMIN_TOKEN: '' } });
  });
  afterAll(() => t?.close());

  it('answers 404', async () => {
    const res = await request(t.url)
      .post('/api/v1/admin/teams')
      .set('authorization', 'Bearer anything')
      .send({ name: 'x' });
    expect(res.status).toBe(404);
    expectErrorShape(res.body, 'not_found_error');
  });
});
