import request from 'supertest';
import { AdminClient } from '../support/admin-client';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import { admin, as, joinTeam } from './accounts-helpers';

const PASSWORD = 'correct horse battery staple';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface AuditEntry {
  action: string;
  target_id: string | null;
  diff: { before: Record<string, unknown> | null; after: Record<string, unknown> | null };
}

/**
 * Key rotation (POST /api/v1/teams/{team_id}/api-keys/{id}/rotate): a new secret with the old key's
 * settings, the old one working for the grace period only (or revoked at once), both audit-logged;
 * two replicas on one database, so the old key's end is seen by the replica that did not rotate it.
 */
describe(`API key rotation on ${backendKind()}`, () => {
  let a: TestApp;
  let b: TestApp;
  let client: AdminClient;

  beforeAll(async () => {
    a = await createTestApp();
    b = await createTestApp({ shareBackendWith: a });
    client = new AdminClient(a.url);
  }, 60_000);
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  const models = (url: string, key: string) => request(url).get('/v1/models').set('api-key', key);

  it('a team admin rotates a key: new secret with the same settings, the old one valid for the grace period, both in the audit log', async () => {
    const teamId = (await client.createTeam('rotation', 5)).id;
    const owner = await joinTeam(a.url, teamId, 'rot-admin@example.com', 'admin', PASSWORD);
    const member = await joinTeam(a.url, teamId, 'rot-member@example.com', 'member', PASSWORD);
    const made = await as(a.url, member)
      .post(`/api/v1/teams/${teamId}/api-keys`)
      .send({ name: 'backend', allowed_models: ['local-embedding-small'] });
    expect(made.status).toBe(201);
    const oldId: string = made.body.id;
    const oldSecret: string = made.body.api_key;
    const limits = await as(a.url, owner)
      .patch(`/api/v1/teams/${teamId}/api-keys/${oldId}`)
      .send({ rpm_limit: 30, budget_rub_per_day: 2 });
    expect(limits.status).toBe(200);

    // a member may not rotate; bad grace periods are 400 before anything changes
    expect(
      (await as(a.url, member).post(`/api/v1/teams/${teamId}/api-keys/${oldId}/rotate`).send({ grace_seconds: 60 }))
        .status,
    ).toBe(403);
    for (const body of [{}, { grace_seconds: -1 }, { grace_seconds: 2_592_001 }, { grace_seconds: 'soon' }]) {
      const bad = await as(a.url, owner).post(`/api/v1/teams/${teamId}/api-keys/${oldId}/rotate`).send(body);
      expect(bad.status).toBe(400);
      expect(bad.body.error.param).toBe('grace_seconds');
    }

    const before = Date.now();
    const rotated = await as(a.url, owner)
      .post(`/api/v1/teams/${teamId}/api-keys/${oldId}/rotate`)
      .send({ grace_seconds: 8 });
    expect(rotated.status).toBe(201);
    expect(rotated.body).toMatchObject({
      name: 'backend',
      rotated_from: oldId,
      allowed_models: ['local-embedding-small'],
      expires_at: null,
    });
    const newId: string = rotated.body.id;
    const newSecret: string = rotated.body.api_key;
    expect(newId).not.toBe(oldId);
    expect(newSecret).not.toBe(oldSecret);
    const previousEnd = Date.parse(rotated.body.previous_expires_at);
    expect(previousEnd).toBeGreaterThanOrEqual(before + 8_000);
    expect(previousEnd).toBeLessThanOrEqual(Date.now() + 8_000);

    // the new key has the old one's limits, budgets, allowlist and creator
    const listed = await as(a.url, owner).get(`/api/v1/teams/${teamId}/api-keys`);
    const fresh = listed.body.data.find((k: { id: string }) => k.id === newId);
    expect(fresh).toMatchObject({
      rpm_limit: 30,
      budget_rub_per_day: 2,
      allowed_models: ['local-embedding-small'],
      created_by: member.userId,
      revoked: false,
    });

    // both secrets work during the grace period, on either replica
    expect((await models(b.url, oldSecret)).status).toBe(200);
    expect((await models(a.url, newSecret)).status).toBe(200);
    await sleep(Math.max(0, previousEnd - Date.now()) + 300);
    // the old one has expired; the cached lookup on the other replica does not outlive it
    const expired = await models(b.url, oldSecret);
    expect(expired.status).toBe(401);
    expect(expired.body.error.code).toBe('key_expired');
    expect((await models(b.url, newSecret)).status).toBe(200);

    // an expired key cannot be rotated again
    const again = await as(a.url, owner)
      .post(`/api/v1/teams/${teamId}/api-keys/${oldId}/rotate`)
      .send({ grace_seconds: 0 });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('key_expired');

    const log = await admin(request(a.url).get(`/api/v1/audit-log?team_id=${teamId}&limit=100`));
    expect(log.status).toBe(200);
    const rotations = (log.body.data as AuditEntry[]).filter((e) => e.action === 'api_key.rotate');
    expect(rotations.map((e) => e.target_id).sort()).toEqual([newId, oldId].sort());
    const oldEntry = rotations.find((e) => e.target_id === oldId)!;
    expect(oldEntry.diff.before).toMatchObject({ expires_at: null, replaced_by: newId });
    expect(oldEntry.diff.after).toMatchObject({ expires_at: rotated.body.previous_expires_at, replaced_by: newId });
    expect(rotations.find((e) => e.target_id === newId)!.diff.after).toMatchObject({ rotated_from: oldId });
    expect(JSON.stringify(log.body)).not.toContain(newSecret);
  }, 60_000);

  it('grace 0 revokes the old key at once; a revoked key and another team’s key are refused', async () => {
    const { teamId, apiKey, keyId } = await client.teamWithKey(5, 'rotation-now');
    const rotated = await admin(request(a.url).post(`/api/v1/teams/${teamId}/api-keys/${keyId}/rotate`)).send({
      grace_seconds: 0,
    });
    expect(rotated.status).toBe(201);
    expect(rotated.body.previous_expires_at).toBeNull();
    const old = await models(b.url, apiKey);
    expect(old.status).toBe(401);
    expect(old.body.error.code).toBe('revoked_api_key');
    expect((await models(b.url, rotated.body.api_key)).status).toBe(200);

    const twice = await admin(request(a.url).post(`/api/v1/teams/${teamId}/api-keys/${keyId}/rotate`)).send({
      grace_seconds: 0,
    });
    expect(twice.status).toBe(409);
    expect(twice.body.error.code).toBe('api_key_revoked');

    const other = await client.teamWithKey(1, 'rotation-other');
    const foreign = await admin(
      request(a.url).post(`/api/v1/teams/${other.teamId}/api-keys/${rotated.body.id}/rotate`),
    ).send({ grace_seconds: 0 });
    expect(foreign.status).toBe(404);
  }, 60_000);
});
