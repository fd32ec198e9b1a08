/**
 * A revoked key is refused on every replica within 1 s: two app instances on one database (and, on
 * Postgres, one Redis), each with the default 5 s in-process auth cache. The key is used on B (so B
 * caches it), revoked through A, and B must refuse it within a second — it used to keep working on B
 * for up to AUTH_CACHE_TTL_SECONDS (5 s). A change of the key's limits reaches B the same way.
 */
import request from 'supertest';
import { AdminClient } from '../support/admin-client';
import { ADMIN_TOKEN, createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';

describe(`key revocation reaches every replica within 1 s (${backendKind()})`, () => {
  let a: TestApp;
  let b: TestApp;
  const admin = () => ({ authorization: `Bearer ${ADMIN_TOKEN}` });

  beforeAll(async () => {
    a = await createTestApp({ env: { AUTH_CACHE_TTL_SECONDS: '5' } });
    b = await createTestApp({ env: { AUTH_CACHE_TTL_SECONDS: '5' }, shareBackendWith: a });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  /** ms until `probe` answers `status` (or null after `limitMs`). */
  async function msUntil(status: number, limitMs: number, probe: () => Promise<request.Response>) {
    const started = Date.now();
    for (;;) {
      const res = await probe();
      if (res.status === status) return { ms: Date.now() - started, res };
      if (Date.now() - started > limitMs) return { ms: null, res };
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  it('revoked on A → refused on B (401 revoked_api_key) within 1 s, GET and POST alike', async () => {
    for (const round of [0, 1]) {
      const { apiKey, keyId } = await new AdminClient(a.url).teamWithKey(10, `rev-${round}`);
      // B has the key in its in-process cache
      for (let i = 0; i < 3; i++)
        expect((await request(b.url).get('/api/v1/balance').set('api-key', apiKey)).status).toBe(200);
      const revoked = await request(a.url).delete(`/api/v1/admin/api-keys/${keyId}`).set(admin());
      expect(revoked.status).toBe(204);
      const probe =
        round === 0
          ? () => request(b.url).get('/api/v1/balance').set('api-key', apiKey)
          : () =>
              request(b.url)
                .post('/v1/embeddings')
                .set('authorization', `Bearer ${apiKey}`)
                .send({ model: 'local-embedding-small', input: 'x' });
      const { ms, res } = await msUntil(401, 1000, probe);
      expect(res.body.error?.code).toBe('revoked_api_key');
      expect(ms).not.toBeNull();
      expect(ms!).toBeLessThanOrEqual(1000);
    }
  });

  it("a key's new rate limit set on A applies on B within 1 s", async () => {
    const { apiKey, keyId } = await new AdminClient(a.url).teamWithKey(10, 'limits');
    // B has the key (without limits) cached, and its embedder warmed up
    const warm = await request(b.url)
      .post('/v1/embeddings')
      .set('authorization', `Bearer ${apiKey}`)
      .send({ model: 'local-embedding-small', input: 'x' });
    expect(warm.status).toBe(200);
    const set = await request(a.url).patch(`/api/v1/admin/api-keys/${keyId}`).set(admin()).send({ rpm_limit: 1 });
    expect(set.status).toBe(200);
    // one request per minute: the first admitted after the change, the next refused — on B, at once
    const { ms, res } = await msUntil(429, 1000, () =>
      request(b.url)
        .post('/v1/embeddings')
        .set('authorization', `Bearer ${apiKey}`)
        .send({ model: 'local-embedding-small', input: 'x' }),
    );
    expect(res.body.error?.code).toBe('rate_limit_exceeded');
    expect(ms).not.toBeNull();
  });
});
