/**
 * project_id in chat, with the real projects module behind the ProjectContextSource port.
 *  - the offline `local` model (full_context): a project holding a PDF and an attached chat; a
 *    question answered only by one of them is answered with its sentence and `sources` names it,
 *    on both endpoints; another team's project → 404 project_not_found;
 *  - thresholds (RAG path, gpt-4o-mini and embeddings on the OpenAI fake): one sentence whose cosine
 *    to the question lies between 0.1 and 0.3 is stored both as a project file and in an attached
 *    knowledge base; only the knowledge-base copy reaches the model.
 */
import request from 'supertest';
import { FakeOpenAI, fakeEmbedding, pngBytes } from '../fakes';
import { AdminClient } from '../support/admin-client';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import { FILLER, pdfWithPages } from '../knowledge/kb-fixtures';
import { providerEnv, UPSTREAM_KEYS } from './chat-helpers';

const CODENAME = 'The project codename is GREEN FALCON.';
const VPN = 'The VPN guide is in the IT wiki, section Remote work.';

type Api = ReturnType<typeof request>;

/** The suite needs libs/projects (its module and routes); it runs as soon as that module exists. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const hasProjects = 'ProjectsModule' in (require('@app/projects') as object);
const describeWithProjects = hasProjects ? describe : describe.skip;

async function settled(
  api: Api,
  key: string,
  projectId: string,
  materialId: string,
  timeoutMs = 30_000,
): Promise<{ status: string; id: string }> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const res = await api.get(`/api/v1/projects/${projectId}/materials`).set('api-key', key);
    const m = (res.body.data as { id: string; status: string }[]).find((x) => x.id === materialId)!;
    if (m.status !== 'in_progress' || Date.now() > end) return m;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describeWithProjects(`chat with project_id, local model (${backendKind()})`, () => {
  let t: TestApp;
  let apiKey: string;
  let otherKey: string;
  let projectId: string;
  let pdfMaterial: string;
  let chatMaterial: string;

  beforeAll(async () => {
    t = await createTestApp({ env: { INGEST_POLL_MS: '100' } });
    const admin = new AdminClient(t.url);
    ({ apiKey } = await admin.teamWithKey(100, 'project-chat'));
    ({ apiKey: otherKey } = await admin.teamWithKey(100, 'project-other'));
    const api = request(t.url);
    projectId = (await api.post('/api/v1/projects').set('api-key', apiKey).send({ name: 'Launch' })).body.id;
    const pdf = await pdfWithPages([FILLER, [CODENAME, FILLER[0]]], 'Launch plan');
    pdfMaterial = (
      await api.post(`/api/v1/projects/${projectId}/files`).set('api-key', apiKey).attach('file', pdf, 'plan.pdf')
    ).body.id;
    chatMaterial = (
      await api
        .post(`/api/v1/projects/${projectId}/chats`)
        .set('api-key', apiKey)
        .send({
          title: 'Support chat',
          messages: [
            { role: 'user', content: 'Where do I find remote access help?' },
            { role: 'assistant', content: VPN },
          ],
        })
    ).body.id;
    for (const id of [pdfMaterial, chatMaterial])
      expect((await settled(request(t.url), apiKey, projectId, id)).status).toBe('completed');
  });
  afterAll(() => t?.close());

  it('a question answered only by the PDF: its sentence, and sources name the PDF material', async () => {
    const res = await request(t.url)
      .post('/api/v1/chat')
      .set('api-key', apiKey)
      .send({ model: 'local', user_id: 'u', prompt: 'What is the project codename?', project_id: projectId });
    expect(res.status).toBe(200);
    expect(res.body.response.text).toContain(CODENAME);
    expect(res.body.response.text).not.toContain('VPN');
    expect(res.body.context).toMatchObject({ mode: 'full', fragments: 0 });
    expect(res.body.context.materials_full).toEqual(expect.arrayContaining([pdfMaterial, chatMaterial]));
    expect(res.body.sources).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ material_id: pdfMaterial, kind: 'file', title: 'Launch plan', score: null }),
      ]),
    );
  });

  it('a question answered only by the attached chat, on /v1/chat/completions: sources name the chat', async () => {
    const res = await request(t.url)
      .post('/v1/chat/completions')
      .set('authorization', `Bearer ${apiKey}`)
      .send({
        model: 'local',
        messages: [{ role: 'user', content: 'Where is the VPN guide?' }],
        project_id: projectId,
      });
    expect(res.status).toBe(200);
    expect(res.body.choices[0].message.content).toContain(VPN);
    expect(res.body.choices[0].message.content).not.toContain('FALCON');
    expect(res.body.sources).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ material_id: chatMaterial, kind: 'chat', title: 'Support chat' }),
      ]),
    );
  });

  it("another team's project → 404 project_not_found on both endpoints", async () => {
    const a = await request(t.url)
      .post('/api/v1/chat')
      .set('api-key', otherKey)
      .send({ model: 'local', user_id: 'u', prompt: 'codename?', project_id: projectId });
    expect(a.status).toBe(404);
    expect(a.body.error).toMatchObject({ code: 'project_not_found', param: 'project_id' });
    const b = await request(t.url)
      .post('/v1/chat/completions')
      .set('authorization', `Bearer ${otherKey}`)
      .send({ model: 'local', messages: [{ role: 'user', content: 'codename?' }], project_id: projectId });
    expect(b.status).toBe(404);
    expect(b.body.error.code).toBe('project_not_found');
  });
});

describeWithProjects(
  `project RAG thresholds: 0.3 for project files, 0.1 for knowledge bases (${backendKind()})`,
  () => {
    const QUESTION = 'What is the harbor signal color?';
    /** cosine to QUESTION under the fake's embeddings ≈ 0.22: between the two thresholds */
    const MIDDLING = 'Pier nine keeps an amber harbor lantern and a signal bell for ships.';
    let openai: FakeOpenAI;
    let t: TestApp;

    beforeAll(async () => {
      openai = await FakeOpenAI.start({ apiKey: UPSTREAM_KEYS.openai });
      t = await createTestApp({ env: { ...providerEnv({ openai }), INGEST_POLL_MS: '100' } });
    });
    afterAll(async () => {
      await t?.close();
      await openai?.close();
    });

    it('the same middling sentence is used from the knowledge base and not from the project file', async () => {
      const q = fakeEmbedding(QUESTION, 1536);
      const d = fakeEmbedding(MIDDLING, 1536);
      const cosine = q.reduce((s, x, i) => s + x * d[i], 0);
      expect(cosine).toBeGreaterThan(0.12);
      expect(cosine).toBeLessThan(0.28);

      const { apiKey } = await new AdminClient(t.url).teamWithKey(100, 'thresholds');
      const api = () => request(t.url);
      const projectId = (await api().post('/api/v1/projects').set('api-key', apiKey).send({ name: 'Harbor' })).body.id;
      const file = await api()
        .post(`/api/v1/projects/${projectId}/files`)
        .set('api-key', apiKey)
        .attach('file', Buffer.from(MIDDLING), 'pier.md');
      expect((await settled(api(), apiKey, projectId, file.body.id)).status).toBe('completed');

      const up = await api()
        .post('/v1/files')
        .set('authorization', `Bearer ${apiKey}`)
        .field('purpose', 'assistants')
        .attach('file', Buffer.from(MIDDLING), 'pier-kb.md');
      const kb = await api()
        .post('/v1/vector_stores')
        .set('authorization', `Bearer ${apiKey}`)
        .send({ name: 'harbor kb', file_ids: [up.body.id] });
      for (let i = 0; i < 100; i++) {
        const s = await api().get(`/v1/vector_stores/${kb.body.id}`).set('authorization', `Bearer ${apiKey}`);
        if (s.body.file_counts.completed === 1) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      const attach = await api()
        .post(`/api/v1/projects/${projectId}/knowledge-bases`)
        .set('api-key', apiKey)
        .send({ knowledge_base_id: kb.body.id });
      expect(attach.status).toBeLessThan(300);

      openai.reset();
      const res = await api()
        .post('/api/v1/chat')
        .set('api-key', apiKey)
        .send({ model: 'gpt-4o-mini', user_id: 'u', prompt: QUESTION, project_id: projectId });
      expect(res.status).toBe(200);
      expect(res.body.context).toMatchObject({ mode: 'rag', fragments: 1 });
      expect(res.body.sources).toEqual([
        expect.objectContaining({ n: 1, kind: 'knowledge_base', material_id: kb.body.id }),
      ]);
      expect(res.body.sources[0].score).toBeGreaterThan(0.1);
      expect(res.body.sources[0].score).toBeLessThan(0.3);
      const chatCall = openai.requests.find((r) => r.path === '/v1/chat/completions')!;
      const sent = JSON.stringify(chatCall.body);
      expect(sent.split(MIDDLING)).toHaveLength(2); // the sentence went to the model exactly once
    });
    it('images among project files go to a vision model as image parts; a model without image input gets none and says so', async () => {
      const { apiKey } = await new AdminClient(t.url).teamWithKey(100, 'images');
      const api = () => request(t.url);
      const projectId = (await api().post('/api/v1/projects').set('api-key', apiKey).send({ name: 'Diagrams' })).body
        .id;
      const png = pngBytes(2, 2);
      const img = await api()
        .post(`/api/v1/projects/${projectId}/files`)
        .set('api-key', apiKey)
        .attach('file', png, 'diagram.png');
      expect((await settled(api(), apiKey, projectId, img.body.id)).status).toBe('completed');

      openai.reset();
      const vision = await api()
        .post('/api/v1/chat')
        .set('api-key', apiKey)
        .send({ model: 'gpt-4o-mini', user_id: 'u', prompt: 'Describe the diagram.', project_id: projectId });
      expect(vision.status).toBe(200);
      expect(vision.body.context).toMatchObject({ images: 1, images_skipped: 0 });
      const sent = openai.requests.find((r) => r.path === '/v1/chat/completions')!.body as {
        messages: { role: string; content: unknown }[];
      };
      const last = sent.messages[sent.messages.length - 1];
      expect(last.content).toEqual([
        { type: 'text', text: 'Describe the diagram.' },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${png.toString('base64')}` } },
      ]);

      const blind = await api()
        .post('/api/v1/chat')
        .set('api-key', apiKey)
        .send({ model: 'local', user_id: 'u', prompt: 'Describe the diagram.', project_id: projectId });
      expect(blind.status).toBe(200);
      expect(blind.body.context).toMatchObject({ images: 0, images_skipped: 1 });
      expect(blind.body.context.notes.join(' ')).toMatch(/does not accept images/);
    });
  },
);
