import type { Caller } from '@app/auth';
import type { KbSearchService } from './kb-search.service';
import { KnowledgeBasesApiService } from './knowledge-bases-api.service';
import { KnowledgeStoreService } from './store/knowledge-store.service';
import { inMemoryKnowledge } from './testing/in-memory-knowledge';

const caller = { teamId: 'team-a', apiKeyId: 'key-a' } as Caller;
const other = { teamId: 'team-b', apiKeyId: 'key-b' } as Caller;

describe('KnowledgeBasesApiService (public API, in-memory repositories)', () => {
  function setup() {
    const mem = inMemoryKnowledge();
    const search = {} as KbSearchService;
    return {
      ...mem,
      api: new KnowledgeBasesApiService(mem.knowledge, search),
      store: new KnowledgeStoreService(mem.knowledge, search),
    };
  }

  it('creates, lists, reads, renames and deletes a knowledge base, answering with response DTOs', async () => {
    const { api } = setup();
    const kb = await api.create(caller, { name: 'Handbook', metadata: { team: 'support' } });
    expect(kb).toMatchObject({
      name: 'Handbook',
      metadata: { team: 'support' },
      status: 'completed',
      embedding_model: 'local-embedding-small',
      dimensions: 1536,
      document_count: 0,
      link_count: 0,
    });
    expect(kb.id).toMatch(/^vs_/);
    expect(typeof kb.created_at).toBe('string');
    expect(kb).not.toHaveProperty('seq');
    expect(kb).not.toHaveProperty('teamId');

    expect((await api.list(caller, {})).data.map((k) => k.id)).toEqual([kb.id]);
    expect((await api.list(other, {})).data).toEqual([]);
    expect((await api.update(caller, kb.id, { name: 'Manual' })).name).toBe('Manual');
    await expect(api.get(other, kb.id)).rejects.toMatchObject({ status: 404, code: 'vector_store_not_found' });
    await api.delete(caller, kb.id);
    await expect(api.get(caller, kb.id)).rejects.toMatchObject({ status: 404 });
  });

  it('adds a text document (queued for ingestion) and lists it with its status', async () => {
    const { api, repo } = setup();
    const kb = await api.create(caller, { name: 'Notes' });
    const doc = await api.addText(caller, kb.id, { name: 'launch', text: 'The launch is on 4 May.' });
    expect(doc).toMatchObject({ kind: 'text', status: 'queued', title: 'launch' });
    expect(repo.jobs).toHaveLength(1);
    expect((await api.documents(caller, kb.id, {})).data.map((d) => d.id)).toEqual([doc.id]);
    expect((await api.get(caller, kb.id)).document_count).toBe(1);
    await expect(api.addText(caller, kb.id, { name: 'empty', text: '  ' })).rejects.toMatchObject({
      status: 400,
      param: 'text',
    });
    await api.deleteDocument(caller, kb.id, doc.id);
    await expect(api.document(caller, kb.id, doc.id)).rejects.toMatchObject({ status: 404, code: 'file_not_found' });
  });

  it('refuses metadata that is not a JSON object string before anything is stored', async () => {
    const { api, filesRepo } = setup();
    const kb = await api.create(caller, { name: 'Uploads' });
    const file = { originalname: 'a.txt', mimetype: 'text/plain', buffer: Buffer.from('a') };
    await expect(api.addUpload(caller, kb.id, file, '{not json')).rejects.toMatchObject({
      status: 400,
      param: 'metadata',
    });
    expect(filesRepo.rows).toHaveLength(0);
  });

  it('a project-owned store is not served by the public API', async () => {
    const { api, store } = setup();
    const internal = await store.createInternalStore(caller.teamId, 'project prj_1');
    await expect(api.get(caller, internal.id)).rejects.toMatchObject({ status: 404 });
    expect((await api.list(caller, {})).data).toEqual([]);
  });
});
