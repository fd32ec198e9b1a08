/**
 * Projects end to end: a project gathers a PDF, an image, a link from a local server, an
 * attached knowledge base, an attached chat, a Telegram export, signed webhook events and a
 * scheduled external API; every text material reaches completed with tokens through knowledge's
 * ingestion; a refused address fails its material; another team sees 404; the project's store
 * never shows in the knowledge-base APIs; ProjectContextSource.load returns materials and images.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { zipSync } from 'fflate';
import { SAFE_FETCHER_OPTIONS, SafeFetcherOptions } from '@app/common';
import { KnowledgeStore } from '@app/knowledge';
import { ProjectContextSource } from '@app/chat/context/ports';
import { ProjectsRepository } from '@app/projects/projects.repository';
import { signWebhook } from '@app/common';
import { ImageServer, pngBytes } from '../fakes';
import { AdminClient } from '../support/admin-client';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import { FILLER, pdfWithPages } from '../knowledge/kb-fixtures';

const FIXTURES = join(__dirname, '../../libs/projects/src/messenger/__fixtures__');

describe(`projects on ${backendKind()}`, () => {
  let t: TestApp;
  let web: ImageServer;
  let admin: AdminClient;
  let apiKey: string;
  let teamId: string;
  let otherKey: string;
  let otherTeam: string;
  let projectId: string;

  const api = () => request(t.url);
  const as = (key: string) => ({
    get: (p: string) => api().get(p).set('api-key', key),
    post: (p: string) => api().post(p).set('api-key', key),
    patch: (p: string) => api().patch(p).set('api-key', key),
    delete: (p: string) => api().delete(p).set('api-key', key),
  });
  const me = () => as(apiKey);
  const contextSource = (): ProjectContextSource =>
    t.app.get(ProjectContextSource as unknown as new () => ProjectContextSource);
  const store = (): KnowledgeStore => t.app.get(KnowledgeStore as unknown as new () => KnowledgeStore);

  type Material = {
    id: string;
    kind: string;
    status: string;
    tokens: number;
    last_error: { code: string; message: string } | null;
    document_id: string | null;
    mime: string | null;
    title: string;
  };
  async function materials(): Promise<Material[]> {
    const res = await me().get(`/api/v1/projects/${projectId}/materials`);
    expect(res.status).toBe(200);
    return res.body.data;
  }
  /** Polls until the material leaves in_progress. */
  async function settled(id: string, timeoutMs = 30_000): Promise<Material> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const m = (await materials()).find((x) => x.id === id)!;
      expect(m).toBeDefined();
      if (m.status !== 'in_progress' || Date.now() > end) return m;
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  beforeAll(async () => {
    web = await ImageServer.start();
    t = await createTestApp({
      env: { INGEST_POLL_MS: '100', INTEGRATION_POLL_MS: '100' },
      overrides: [
        {
          provide: SAFE_FETCHER_OPTIONS,
          useValue: { allowAddress: (ip: string) => ip === '127.0.0.1' } satisfies SafeFetcherOptions,
        },
      ],
    });
    admin = new AdminClient(t.url);
    ({ apiKey, teamId } = await admin.teamWithKey(100, 'projects-team'));
    ({ apiKey: otherKey, teamId: otherTeam } = await admin.teamWithKey(100, 'other-team'));
  });
  afterAll(async () => {
    await t?.close();
    await web?.close();
  });

  it('creates a project with the RAG defaults; PATCH changes only what is given; the list is paged', async () => {
    const res = await me()
      .post('/api/v1/projects')
      .send({ name: 'Support assistant', description: 'Handbook and chats' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      object: 'project',
      name: 'Support assistant',
      description: 'Handbook and chats',
      mode: 'default',
      rag: { top_k: 15, rerank: true, file_threshold: 0.3, kb_threshold: 0.1 },
      materials: { total: 0 },
    });
    expect(res.body.id).toMatch(/^prj_[0-9a-f]{24}$/);
    projectId = res.body.id;

    const patched = await me()
      .patch(`/api/v1/projects/${projectId}`)
      .send({ mode: 'big_docs_mode', rag: { top_k: 20 } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      mode: 'big_docs_mode',
      rag: { top_k: 20, rerank: true, file_threshold: 0.3, kb_threshold: 0.1 },
    });
    expect(
      (
        await me()
          .patch(`/api/v1/projects/${projectId}`)
          .send({ rag: { top_k: 31 } })
      ).status,
    ).toBe(400);
    expect((await me().patch(`/api/v1/projects/${projectId}`).send({ mode: 'turbo' })).status).toBe(400);

    const second = await me().post('/api/v1/projects').send({ name: 'Second' });
    const page1 = await me().get('/api/v1/projects?limit=1');
    expect(page1.body).toMatchObject({ has_more: true, data: [{ id: second.body.id }] });
    const page2 = await me().get(`/api/v1/projects?limit=1&after=${second.body.id}`);
    expect(page2.body.data.map((p: { id: string }) => p.id)).toEqual([projectId]);
    expect(page2.body.has_more).toBe(false);
    expect((await me().delete(`/api/v1/projects/${second.body.id}`)).body).toEqual({
      id: second.body.id,
      deleted: true,
    });
    expect((await me().get(`/api/v1/projects/${second.body.id}`)).status).toBe(404);
  });

  it("another team's project answers 404 everywhere", async () => {
    const other = as(otherKey);
    for (const res of [
      await other.get(`/api/v1/projects/${projectId}`),
      await other.get(`/api/v1/projects/${projectId}/materials`),
      await other.patch(`/api/v1/projects/${projectId}`).send({ name: 'x' }),
      await other.post(`/api/v1/projects/${projectId}/links`).send({ url: 'https://example.com' }),
      await other.delete(`/api/v1/projects/${projectId}`),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('project_not_found');
    }
    expect((await other.get('/api/v1/projects')).body.data).toEqual([]);
  });

  it('a PDF (multipart) and an image reach completed; the PDF has tokens, the image is stored, not indexed', async () => {
    const pdf = await pdfWithPages([FILLER, ['The project codename is GREEN FALCON.']], 'Project handbook');
    const res = await me().post(`/api/v1/projects/${projectId}/files`).attach('file', pdf, 'handbook.pdf');
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ object: 'project.material', kind: 'file', status: 'in_progress', mime: null });
    const done = await settled(res.body.id);
    expect(done).toMatchObject({ status: 'completed', last_error: null, title: 'Project handbook' });
    expect(done.tokens).toBeGreaterThan(0);

    const png = pngBytes(2, 2);
    const img = await me().post(`/api/v1/projects/${projectId}/files`).attach('file', png, 'diagram.png');
    expect(img.status).toBe(202);
    const imgDone = await settled(img.body.id);
    expect(imgDone).toMatchObject({ kind: 'file', mime: 'image/png', status: 'completed', tokens: 0 });

    // JSON {file_id} of an uploaded file
    const up = await api()
      .post('/v1/files')
      .set('authorization', `Bearer ${apiKey}`)
      .field('purpose', 'assistants')
      .attach('file', Buffer.from('# Notes\n\nThe office cat is called Pixel.'), 'notes.md');
    const byId = await me().post(`/api/v1/projects/${projectId}/files`).send({ file_id: up.body.id });
    expect(byId.status).toBe(202);
    expect(byId.body.document_id).toBe(up.body.id);
    expect((await settled(byId.body.id)).status).toBe('completed');
    // another team's file id is unknown
    expect(
      (await me().post(`/api/v1/projects/${projectId}/files`).send({ file_id: 'file-000000000000000000000000' }))
        .status,
    ).toBe(404);
  });

  it('a link from a local server is fetched and indexed; a private address fails the material with a clear last_error', async () => {
    const page = web.serve(
      '/guide.html',
      '<html><head><title>Onboarding guide</title></head><body><h1>Onboarding</h1><p>New hires get a laptop on day one and meet their buddy.</p></body></html>',
      'text/html',
    );
    const res = await me().post(`/api/v1/projects/${projectId}/links`).send({ url: page });
    expect(res.status).toBe(202);
    const done = await settled(res.body.id);
    expect(done).toMatchObject({ kind: 'link', status: 'completed', title: 'Onboarding guide' });
    expect(done.tokens).toBeGreaterThan(0);
    // refresh: fetched again, unchanged → still completed
    const refreshed = await me().post(`/api/v1/projects/${projectId}/materials/${res.body.id}/refresh`);
    expect(refreshed.status).toBe(202);
    expect((await settled(res.body.id)).status).toBe('completed');
    expect(web.hits('/guide.html')).toBe(2);

    const blocked = await me()
      .post(`/api/v1/projects/${projectId}/links`)
      .send({ url: 'http://169.254.169.254/latest/meta-data/' });
    expect(blocked.status).toBe(202);
    const failed = await settled(blocked.body.id);
    expect(failed.status).toBe('failed');
    expect(failed.last_error).toEqual({
      code: 'link_forbidden_address',
      message: expect.stringMatching(/could not be fetched.*forbidden address/i),
    });
  });

  it('attaches a knowledge base of the team (404 for another team’s or the project’s own store) and detaches it', async () => {
    const kb = await me().post('/api/v1/knowledge-bases').send({ name: 'Policies' });
    const res = await me()
      .post(`/api/v1/projects/${projectId}/knowledge-bases`)
      .send({ knowledge_base_id: kb.body.id });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      kind: 'knowledge_base',
      knowledge_base_id: kb.body.id,
      title: 'Policies',
      status: 'completed',
    });
    const again = await me()
      .post(`/api/v1/projects/${projectId}/knowledge-bases`)
      .send({ knowledge_base_id: kb.body.id });
    expect(again.body.id).toBe(res.body.id);

    const foreign = await as(otherKey).post('/api/v1/knowledge-bases').send({ name: 'Theirs' });
    expect(
      (await me().post(`/api/v1/projects/${projectId}/knowledge-bases`).send({ knowledge_base_id: foreign.body.id }))
        .status,
    ).toBe(404);
    const ctx = (await contextSource().load(teamId, projectId))!;
    expect(
      (await me().post(`/api/v1/projects/${projectId}/knowledge-bases`).send({ knowledge_base_id: ctx.storeId }))
        .status,
    ).toBe(404);

    const temp = await me().post('/api/v1/knowledge-bases').send({ name: 'Temporary' });
    await me().post(`/api/v1/projects/${projectId}/knowledge-bases`).send({ knowledge_base_id: temp.body.id });
    const detached = await me().delete(`/api/v1/projects/${projectId}/knowledge-bases/${temp.body.id}`);
    expect(detached.body).toEqual({ id: temp.body.id, deleted: true });
    expect((await me().get(`/api/v1/knowledge-bases/${temp.body.id}`)).status).toBe(200);
    expect((await materials()).filter((m) => m.kind === 'knowledge_base')).toHaveLength(1);
  });

  it("the project's store is internal: not listed nor served by /v1/vector_stores or /api/v1/knowledge-bases", async () => {
    const ctx = (await contextSource().load(teamId, projectId))!;
    const bearer = { authorization: `Bearer ${apiKey}` };
    const list = await api().get('/v1/vector_stores?limit=100').set(bearer);
    expect(list.body.data.map((s: { id: string }) => s.id)).not.toContain(ctx.storeId);
    const kbs = await me().get('/api/v1/knowledge-bases?limit=100');
    expect(kbs.body.data.map((s: { id: string }) => s.id)).not.toContain(ctx.storeId);
    expect((await api().get(`/v1/vector_stores/${ctx.storeId}`).set(bearer)).status).toBe(404);
    expect((await me().get(`/api/v1/knowledge-bases/${ctx.storeId}/documents`)).status).toBe(404);
    expect((await me().post(`/api/v1/knowledge-bases/${ctx.storeId}/search`).send({ query: 'codename' })).status).toBe(
      404,
    );
    expect((await me().delete(`/api/v1/knowledge-bases/${ctx.storeId}`)).status).toBe(404);
  });

  it('an attached chat and a Telegram export are indexed in windows of whole messages', async () => {
    const chat = await me()
      .post(`/api/v1/projects/${projectId}/chats`)
      .send({
        title: 'Support chat',
        messages: [
          { role: 'user', content: 'Where is the VPN guide?', created_at: '2026-01-15T10:00:00Z' },
          { role: 'assistant', content: 'In the IT wiki,\nsection Remote work.' },
        ],
      });
    expect(chat.status).toBe(202);
    expect(await settled(chat.body.id)).toMatchObject({ kind: 'chat', title: 'Support chat', status: 'completed' });

    const tg = await me()
      .post(`/api/v1/projects/${projectId}/messenger-chats`)
      .field('format', 'telegram')
      .attach('file', readFileSync(join(FIXTURES, 'telegram-full-export.json')), 'result.json');
    expect(tg.status).toBe(202);
    const done = await settled(tg.body.id);
    expect(done).toMatchObject({ kind: 'messenger_chat', title: 'result.json', status: 'completed' });
    expect(done.tokens).toBeGreaterThan(0);
    const text = await store().documentText(
      teamId,
      (await contextSource().load(teamId, projectId))!.storeId,
      done.document_id!,
    );
    expect(text).toContain('[2026-02-02T08:00:05] #Ops Anna Petrova: Backups run at 02:00 UTC.');

    const bad = await me()
      .post(`/api/v1/projects/${projectId}/messenger-chats`)
      .field('format', 'whatsapp')
      .attach('file', Buffer.from('no messages here'), 'chat.txt');
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_export');
    expect(
      (
        await me()
          .post(`/api/v1/projects/${projectId}/messenger-chats`)
          .field('format', 'icq')
          .attach('file', Buffer.from('x'), 'x.txt')
      ).status,
    ).toBe(400);
  });

  it('webhook: signed events become material text; replays are acknowledged once; bad or stale signatures are refused', async () => {
    const res = await me()
      .post(`/api/v1/projects/${projectId}/integrations`)
      .send({ type: 'webhook', name: 'CRM events' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      object: 'project.integration',
      type: 'webhook',
      name: 'CRM events',
      url: `/api/v1/hooks/${res.body.id}`,
    });
    const secret: string = res.body.secret;
    expect(secret).toMatch(/^whsec_/);
    const materialId: string = res.body.material_id;

    const send = (id: string, body: string, opts: { ts?: number; sig?: string } = {}) => {
      const ts = opts.ts ?? Math.floor(Date.now() / 1000);
      return api()
        .post(res.body.url)
        .set('content-type', 'application/json')
        .set('webhook-id', id)
        .set('webhook-timestamp', String(ts))
        .set('webhook-signature', opts.sig ?? signWebhook(secret, id, ts, body))
        .send(body);
    };
    const event = JSON.stringify({
      type: 'ticket.created',
      data: { id: 42, subject: 'Customer ZEBRA-77 cannot log in' },
    });
    const first = await send('msg_001', event);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ received: true, duplicate: false });
    const replay = await send('msg_001', event);
    expect(replay.body).toEqual({ received: true, duplicate: true });

    const tampered = await send('msg_002', event, {
      sig: signWebhook(secret, 'msg_002', Math.floor(Date.now() / 1000), event.replace('42', '43')),
    });
    expect(tampered.status).toBe(401);
    expect(tampered.body.error.code).toBe('invalid_signature');
    const stale = await send('msg_003', event, { ts: Math.floor(Date.now() / 1000) - 600 });
    expect(stale.status).toBe(401);
    expect(stale.body.error.message).toMatch(/5 minutes/);
    expect(
      (await api().post('/api/v1/hooks/int_000000000000000000000000').set('webhook-id', 'x').send('{}')).status,
    ).toBe(404);
    const big = 'x'.repeat(300 * 1024);
    expect((await send('msg_big', big)).status).toBe(413);
    // any content type: the signature covers the exact bytes
    const ts = Math.floor(Date.now() / 1000);
    const plain = await api()
      .post(res.body.url)
      .set('content-type', 'text/plain')
      .set('webhook-id', 'msg_plain')
      .set('webhook-timestamp', String(ts))
      .set('webhook-signature', signWebhook(secret, 'msg_plain', ts, 'deploy finished: build 981'))
      .send('deploy finished: build 981');
    expect(plain.body).toEqual({ received: true, duplicate: false });

    const done = await settled(materialId);
    expect(done).toMatchObject({ kind: 'webhook', status: 'completed' });
    expect(done.tokens).toBeGreaterThan(0);
    const ctx = (await contextSource().load(teamId, projectId))!;
    const text = await store().documentText(teamId, ctx.storeId, done.document_id!);
    expect(text.match(/ZEBRA-77/g)).toHaveLength(1); // the replay was not stored twice
    expect(text).toContain('deploy finished: build 981');

    await send('msg_004', JSON.stringify({ type: 'ticket.closed', data: { id: 42 } }));
    await new Promise((r) => setTimeout(r, 50));
    const after = await settled(materialId);
    expect(after.status).toBe('completed');
    expect(await store().documentText(teamId, ctx.storeId, done.document_id!)).toContain('ticket.closed');
  });

  it('external API: fetched on schedule with its (encrypted, never shown) headers; sync re-ingests changes and does not re-bill unchanged content', async () => {
    web.serve(
      '/api/status',
      JSON.stringify({ data: { status: 'All systems operational: ORCA cluster healthy' }, ignored: 1 }),
      'application/json',
    );
    const res = await me()
      .post(`/api/v1/projects/${projectId}/integrations`)
      .send({
        type: 'external_api',
        name: 'Status API',
        url: web.url('/api/status'),
        method: 'GET',
        headers: { Authorization: 'Bearer s3cret-token' },
        json_path: 'data',
        interval_seconds: 300,
      });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      type: 'external_api',
      method: 'GET',
      header_names: ['authorization'],
      interval_seconds: 300,
      json_path: 'data',
    });
    expect(JSON.stringify(res.body)).not.toContain('s3cret');
    const stored = await t.get(ProjectsRepository).findIntegration(res.body.id);
    expect(stored!.headersEnc).toBeTruthy();
    expect(stored!.headersEnc).not.toContain('s3cret');

    const first = await settled(res.body.material_id);
    expect(first).toMatchObject({ kind: 'external_api', status: 'completed' });
    expect(first.tokens).toBeGreaterThan(0);
    const calls = web.requestsTo('/api/status');
    expect(calls.length).toBe(1);
    expect(calls[0].headers.authorization).toBe('Bearer s3cret-token');

    const balance = await admin.balance(apiKey);
    const same = await me().post(`/api/v1/projects/${projectId}/integrations/${res.body.id}/sync`);
    expect(same.status).toBe(200);
    expect(same.body).toMatchObject({
      changed: false,
      material: { status: 'completed' },
      integration: { last_error: null },
    });
    expect(web.requestsTo('/api/status').length).toBe(2);
    await new Promise((r) => setTimeout(r, 300));
    expect(await admin.balance(apiKey)).toBe(balance);

    web.serve(
      '/api/status',
      JSON.stringify({ data: { status: 'Degraded: ORCA cluster failing over to PELICAN' } }),
      'application/json',
    );
    const changed = await me().post(`/api/v1/projects/${projectId}/integrations/${res.body.id}/sync`);
    expect(changed.body.changed).toBe(true);
    const after = await settled(res.body.material_id);
    expect(after.status).toBe('completed');
    expect(await admin.balance(apiKey)).toBeLessThan(balance);
    const ctx = (await contextSource().load(teamId, projectId))!;
    expect(await store().documentText(teamId, ctx.storeId, after.document_id!)).toContain('PELICAN');

    expect(
      (
        await me()
          .post(`/api/v1/projects/${projectId}/integrations`)
          .send({ type: 'external_api', name: 'x', url: web.url('/a'), interval_seconds: 60 })
      ).status,
    ).toBe(400);
  });

  it('ProjectContextSource.load returns ready text materials, images, attached KBs and settings; null for another team', async () => {
    const src = contextSource();
    expect(await src.load(otherTeam, projectId)).toBeNull();
    expect(await src.load(teamId, 'prj_unknown')).toBeNull();
    const ctx = (await src.load(teamId, projectId))!;
    expect(ctx).toMatchObject({
      id: projectId,
      name: 'Support assistant',
      mode: 'big_docs_mode',
      rag: { top_k: 20, rerank: true, file_threshold: 0.3, kb_threshold: 0.1 },
    });
    expect(ctx.storeId).toMatch(/^vs_/);
    expect(ctx.knowledgeBaseIds).toHaveLength(1);
    expect(ctx.materials.map((m) => m.kind).sort()).toEqual([
      'chat',
      'external_api',
      'file',
      'file',
      'link',
      'messenger_chat',
      'webhook',
    ]);
    expect(ctx.materials.every((m) => m.documentId)).toBe(true);
    expect(ctx.images).toHaveLength(1);
    expect(ctx.images[0]).toMatchObject({ mime: 'image/png', title: 'diagram.png' });
    expect(ctx.images[0].bytes.equals(pngBytes(2, 2))).toBe(true);
    // the failed link is not a ready material
    const all = await materials();
    expect(all.some((m) => m.status === 'failed')).toBe(true);
    expect(ctx.materials.map((m) => m.id)).not.toContain(all.find((m) => m.status === 'failed')!.id);

    const project = await me().get(`/api/v1/projects/${projectId}`);
    expect(project.body.materials).toMatchObject({
      file: 3,
      link: 2,
      knowledge_base: 1,
      chat: 1,
      messenger_chat: 1,
      webhook: 1,
      external_api: 1,
      total: 10,
    });
  });

  it('deleting a material removes it from the project and its store', async () => {
    const all = await materials();
    const chat = all.find((m) => m.kind === 'chat')!;
    expect((await me().delete(`/api/v1/projects/${projectId}/materials/${chat.id}`)).body).toEqual({
      id: chat.id,
      deleted: true,
    });
    expect((await materials()).map((m) => m.id)).not.toContain(chat.id);
    const ctx = (await contextSource().load(teamId, projectId))!;
    expect(await store().internalDocuments(teamId, ctx.storeId, [chat.document_id!])).toEqual([]);
    expect((await me().delete(`/api/v1/projects/${projectId}/materials/${chat.id}`)).status).toBe(404);
    // the project created the chat's file: gone with it; a file attached by id stays the caller's
    const bearer = { authorization: `Bearer ${apiKey}` };
    expect((await api().get(`/v1/files/${chat.document_id}`).set(bearer)).status).toBe(404);
    const byId = all.find((m) => m.kind === 'file' && m.title === 'Notes')!;
    await me().delete(`/api/v1/projects/${projectId}/materials/${byId.id}`);
    expect((await api().get(`/v1/files/${byId.document_id}`).set(bearer)).status).toBe(200);
  });

  it('a deleted knowledge base reads failed in the materials and is not given to chat', async () => {
    const kb = await me().post('/api/v1/knowledge-bases').send({ name: 'Short-lived' });
    const m = await me().post(`/api/v1/projects/${projectId}/knowledge-bases`).send({ knowledge_base_id: kb.body.id });
    expect((await contextSource().load(teamId, projectId))!.knowledgeBaseIds).toContain(kb.body.id);
    await me().delete(`/api/v1/knowledge-bases/${kb.body.id}`);
    expect((await materials()).find((x) => x.id === m.body.id)).toMatchObject({
      status: 'failed',
      last_error: { code: 'knowledge_base_deleted' },
    });
    expect((await contextSource().load(teamId, projectId))!.knowledgeBaseIds).not.toContain(kb.body.id);
  });

  it('a Slack export (.zip) and a WhatsApp export are imported', async () => {
    const root = join(FIXTURES, 'slack-export');
    const files: Record<string, Uint8Array> = {};
    for (const p of [
      'users.json',
      'channels.json',
      'general/2026-01-05.json',
      'general/2026-01-06.json',
      'random/2026-01-05.json',
    ])
      files[p] = readFileSync(join(root, p));
    const slack = await me()
      .post(`/api/v1/projects/${projectId}/messenger-chats`)
      .field('format', 'slack')
      .field('title', 'Slack workspace')
      .attach('file', Buffer.from(zipSync(files)), 'export.zip');
    expect(slack.status).toBe(202);
    expect(await settled(slack.body.id)).toMatchObject({ title: 'Slack workspace', status: 'completed' });
    const wa = await me()
      .post(`/api/v1/projects/${projectId}/messenger-chats`)
      .field('format', 'whatsapp')
      .attach('file', readFileSync(join(FIXTURES, 'whatsapp-ios-mmddyy.txt')), 'WhatsApp Chat.txt');
    expect(wa.status).toBe(202);
    const done = await settled(wa.body.id);
    expect(done.status).toBe('completed');
    const ctx = (await contextSource().load(teamId, projectId))!;
    expect(await store().documentText(teamId, ctx.storeId, done.document_id!)).toContain(
      '[2026-01-13T12:00:00] Carol: Lunch at noon',
    );
  });

  it('limits: at most 100 links and 100 documents per project (409 beyond)', async () => {
    const p = (await me().post('/api/v1/projects').send({ name: 'Limits' })).body.id as string;
    const inBatches = async (make: (i: number) => Promise<{ status: number }>) => {
      for (let i = 0; i < 100; i += 10)
        for (const r of await Promise.all(Array.from({ length: 10 }, (_, k) => make(i + k))))
          expect(r.status).toBe(202);
    };
    await inBatches((i) =>
      me()
        .post(`/api/v1/projects/${p}/links`)
        .send({ url: `http://169.254.169.254/page-${i}` }),
    );
    const tooMany = await me().post(`/api/v1/projects/${p}/links`).send({ url: 'http://169.254.169.254/page-100' });
    expect(tooMany.status).toBe(409);
    expect(tooMany.body.error).toMatchObject({ code: 'too_many_links', message: 'A project holds at most 100 links.' });
    await inBatches((i) =>
      me()
        .post(`/api/v1/projects/${p}/chats`)
        .send({ title: `c${i}`, messages: [{ role: 'user', content: `note ${i}` }] }),
    );
    const tooManyDocs = await me()
      .post(`/api/v1/projects/${p}/chats`)
      .send({ title: 'one more', messages: [{ role: 'user', content: 'x' }] });
    expect(tooManyDocs.status).toBe(409);
    expect(tooManyDocs.body.error.code).toBe('too_many_documents');
    expect((await me().delete(`/api/v1/projects/${p}`)).status).toBe(200);
  }, 120_000);
});
