/**
 * The audit record is written in the transaction of the change it records: when the record cannot
 * be written the change is rolled back, and a change that fails leaves no record. Files, documents
 * and project materials are recorded too, with their content and secrets absent.
 */
import request from 'supertest';
import { DataSource } from 'typeorm';
import { RawSql } from '@app/database';
import { FakeOpenAI } from '../fakes';
import { providerEnv, UPSTREAM_KEYS } from '../chat/chat-helpers';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import { admin, as, Browser, joinTeam } from './accounts-helpers';

const PASSWORD = 'correct horse battery staple';

interface Entry {
  action: string;
  actor_type: string;
  actor_id: string | null;
  team_id: string | null;
  target_type: string | null;
  target_id: string | null;
  diff: { before: Record<string, unknown> | null; after: Record<string, unknown> | null } | null;
}

describe(`accounts: the audit record commits with its change on ${backendKind()}`, () => {
  let openai: FakeOpenAI;
  let t: TestApp;
  let teamId: string;
  let owner: Browser;
  let member: Browser;

  beforeAll(async () => {
    openai = await FakeOpenAI.start({ apiKey: UPSTREAM_KEYS.openai });
    t = await createTestApp({ env: { ...providerEnv({ openai }), AUTH_CACHE_TTL_SECONDS: '0' } });
    teamId = (await admin(request(t.url).post('/api/v1/admin/teams')).send({ name: 'acme', balance_rub: 100 })).body.id;
    owner = await joinTeam(t.url, teamId, 'owner@acme.test', 'owner', PASSWORD);
    member = await joinTeam(t.url, teamId, 'member@acme.test', 'member', PASSWORD);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await openai?.close();
  });

  const log = async (query: string): Promise<Entry[]> => {
    const res = await admin(request(t.url).get(`/api/v1/audit-log?limit=1000&${query}`));
    expect(res.status).toBe(200);
    return res.body.data as Entry[];
  };
  const session = () => {
    const b = as(t.url, owner);
    return {
      get: (p: string) => b.get(p).set('x-team-id', teamId),
      post: (p: string) => b.post(p).set('x-team-id', teamId),
      patch: (p: string) => b.patch(p).set('x-team-id', teamId),
      delete: (p: string) => b.delete(p).set('x-team-id', teamId),
    };
  };

  /** Runs `work` while `table` is renamed away, so every statement on it fails (a broken write). */
  async function withoutTable<T>(table: string, work: () => Promise<T>): Promise<T> {
    const ds = t.get(DataSource);
    const path = new RawSql(ds).table(table);
    const away = `${table}_away`;
    await ds.query(`ALTER TABLE ${path} RENAME TO ${ds.driver.escape(away)}`);
    try {
      return await work();
    } finally {
      await ds.query(
        `ALTER TABLE ${path.replace(ds.driver.escape(table), ds.driver.escape(away))} RENAME TO ${ds.driver.escape(table)}`,
      );
    }
  }

  it('a change whose audit record cannot be written is rolled back (admin API, team API, session product API)', async () => {
    const keysBefore = (await session().get(`/api/v1/teams/${teamId}/api-keys`)).body.data.length;
    const refused = await withoutTable('audit_log', async () => ({
      key: await session().post(`/api/v1/teams/${teamId}/api-keys`).send({ name: 'unrecorded' }),
      rename: await admin(request(t.url).patch(`/api/v1/admin/teams/${teamId}`)).send({ name: 'renamed' }),
      project: await session().post('/api/v1/projects').send({ name: 'unrecorded' }),
      kb: await session().post('/api/v1/knowledge-bases').send({ name: 'unrecorded' }),
      file: await session()
        .post('/v1/files')
        .field('purpose', 'assistants')
        .attach('file', Buffer.from('never stored'), 'unrecorded.md'),
      role: await session().patch(`/api/v1/teams/${teamId}/members/${member.userId}`).send({
        role: 'admin',
      }),
    }));
    for (const [what, res] of Object.entries(refused)) expect([what, res.status]).toEqual([what, 500]);

    const keys = (await session().get(`/api/v1/teams/${teamId}/api-keys`)).body.data as { name: string }[];
    expect(keys).toHaveLength(keysBefore);
    expect((await admin(request(t.url).get(`/api/v1/teams/${teamId}`))).body.name).toBe('acme');
    const projects = (await session().get('/api/v1/projects')).body.data as { name: string }[];
    expect(projects.map((p) => p.name)).not.toContain('unrecorded');
    const kbs = (await session().get('/api/v1/knowledge-bases')).body.data as { name: string }[];
    expect(kbs.map((k) => k.name)).not.toContain('unrecorded');
    const files = (await session().get('/v1/files')).body.data as { filename: string }[];
    expect(files.map((f) => f.filename)).not.toContain('unrecorded.md');
    const members = (await admin(request(t.url).get(`/api/v1/teams/${teamId}/members`))).body.data as {
      user_id: string;
      role: string;
    }[];
    expect(members.find((m) => m.user_id === member.userId)?.role).toBe('member');

    // the same changes go through once the log is writable again, each with its record
    const key = await session().post(`/api/v1/teams/${teamId}/api-keys`).send({ name: 'recorded' });
    expect(key.status).toBe(201);
    expect(await log(`action=api_key.create&target=${key.body.id}`)).toHaveLength(1);
  });

  it('a change that fails leaves no audit record', async () => {
    const count = async (action: string) => (await log(`action=${action}&team_id=${teamId}`)).length;
    const [keys, projects, files] = [
      await count('api_key.create'),
      await count('project.create'),
      await count('file.create'),
    ];
    const refused = {
      key: await withoutTable('api_keys', () =>
        session().post(`/api/v1/teams/${teamId}/api-keys`).send({ name: 'never' }),
      ),
      project: await withoutTable('projects', () => session().post('/api/v1/projects').send({ name: 'never' })),
      file: await withoutTable('files', () =>
        session().post('/v1/files').field('purpose', 'assistants').attach('file', Buffer.from('x'), 'never.md'),
      ),
    };
    for (const [what, res] of Object.entries(refused)) expect([what, res.status]).toEqual([what, 500]);
    expect([await count('api_key.create'), await count('project.create'), await count('file.create')]).toEqual([
      keys,
      projects,
      files,
    ]);
  });

  it('files, documents, materials, integrations and alert rules are recorded with the session user, content and secrets absent', async () => {
    const CONTENT = 'The office cat is called Pixel and the door code is 4711.';
    const up = await session()
      .post('/v1/files')
      .field('purpose', 'assistants')
      .attach('file', Buffer.from(CONTENT), 'notes.md');
    expect(up.status).toBe(200);
    const kb = await session().post('/api/v1/knowledge-bases').send({ name: 'handbook' });
    expect(kb.status).toBe(201);
    const TEXT = 'To reset your password open Settings and choose Reset; the master word is swordfish.';
    const doc = await session()
      .post(`/api/v1/knowledge-bases/${kb.body.id}/documents`)
      .send({ name: 'reset.md', text: TEXT });
    expect(doc.status).toBe(202);
    const p = await session().post('/api/v1/projects').send({ name: 'support' });
    const material = await session().post(`/api/v1/projects/${p.body.id}/files`).send({ file_id: up.body.id });
    expect(material.status).toBe(202);
    const hook = await session()
      .post(`/api/v1/projects/${p.body.id}/integrations`)
      .send({ type: 'webhook', name: 'events' });
    expect(hook.status).toBe(201);
    expect((await session().delete(`/api/v1/projects/${p.body.id}/materials/${material.body.id}`)).status).toBeLessThan(
      300,
    );
    expect(
      (await session().delete(`/api/v1/knowledge-bases/${kb.body.id}/documents/${doc.body.id}`)).status,
    ).toBeLessThan(300);
    expect((await session().delete(`/v1/files/${up.body.id}`)).status).toBe(200);

    const entries = await log(`team_id=${teamId}&actor=${owner.userId}`);
    const find = (action: string, target: string) => entries.find((e) => e.action === action && e.target_id === target);
    expect(find('file.create', up.body.id)).toMatchObject({
      actor_type: 'user',
      target_type: 'file',
      diff: { before: null, after: expect.objectContaining({ filename: 'notes.md', bytes: CONTENT.length }) },
    });
    expect(find('file.delete', up.body.id)).toMatchObject({
      diff: { before: expect.objectContaining({ filename: 'notes.md' }), after: null },
    });
    expect(find('document.create', doc.body.id)).toMatchObject({
      target_type: 'document',
      diff: { after: expect.objectContaining({ knowledge_base_id: kb.body.id, kind: 'text' }) },
    });
    expect(find('document.delete', doc.body.id)).toBeDefined();
    expect(find('material.create', material.body.id)).toMatchObject({
      target_type: 'material',
      diff: { after: expect.objectContaining({ project_id: p.body.id, document_id: up.body.id }) },
    });
    expect(find('material.delete', material.body.id)).toBeDefined();
    expect(find('integration.create', hook.body.id)).toMatchObject({
      diff: { after: { project_id: p.body.id, type: 'webhook', name: 'events', url: null } },
    });
    // team API: an alert rule and its channel types (never the bot token or the chat)
    const alert = await as(t.url, owner)
      .post(`/api/v1/teams/${teamId}/alerts`)
      .send({
        kind: 'balance_below',
        threshold_rub: 1,
        channels: [{ type: 'telegram', bot_token: '123456:SECRET-bot-token', chat_id: -100123 }],
      });
    expect(alert.status).toBe(201);
    expect((await as(t.url, owner).delete(`/api/v1/teams/${teamId}/alerts/${alert.body.id}`)).status).toBe(204);
    const alertLog = await log(`target=${alert.body.id}`);
    expect(alertLog.map((e) => [e.action, e.actor_id])).toEqual([
      ['alert.delete', owner.userId],
      ['alert.create', owner.userId],
    ]);
    expect(alertLog[1].diff?.after).toMatchObject({ kind: 'balance_below', channels: ['telegram'] });
    expect(JSON.stringify(alertLog)).not.toMatch(/SECRET-bot-token|-100123/);

    const text = JSON.stringify(entries);
    expect(text).not.toContain('Pixel');
    expect(text).not.toContain('swordfish');
    expect(text).not.toContain(String(hook.body.secret));
  });
});
