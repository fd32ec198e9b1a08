import type { Caller } from '@app/auth';
import type { ChunkHit, KbSearchService } from '../kb-search.service';
import { inMemoryKnowledge } from '../testing/in-memory-knowledge';
import { KnowledgeStoreService } from './knowledge-store.service';

const caller = { teamId: 'team-a', apiKeyId: 'key-a' } as Caller;

/** The search engine as the store API sees it: rows in, a fixed outcome out. */
class RecordingSearch {
  calls: { store: string; filter: unknown }[] = [];
  hits: ChunkHit[] = [];
  async search(_caller: Caller, store: { id: string }, input: { filter: unknown }) {
    this.calls.push({ store: store.id, filter: input.filter });
    return { hits: this.hits, queryTokens: 3, costMicro: 42, elapsedMs: 1, engineMs: 1 };
  }
  async maxChunkTokens(stores: { id: string }[]) {
    return stores.length * 100;
  }
  holdMicro() {
    return 7;
  }
}

describe('KnowledgeStoreService (internal store API, in-memory repositories)', () => {
  function setup() {
    const mem = inMemoryKnowledge();
    const search = new RecordingSearch();
    return { ...mem, search, store: new KnowledgeStoreService(mem.knowledge, search as unknown as KbSearchService) };
  }

  it('project stores and their documents come back as plain read models', async () => {
    const { store, repo } = setup();
    const ref = await store.createInternalStore(caller.teamId, 'project prj_1');
    expect(Object.keys(ref).sort()).toEqual(['dimensions', 'embeddingModel', 'id', 'revision', 'teamId']);
    const doc = await store.addInternalDocument(
      caller.teamId,
      ref.id,
      { type: 'text', title: 'Chat with Anna', filename: 'chat.md', text: 'Backups run at 02:00 UTC.' },
      'A project',
    );
    expect(doc).toMatchObject({ storeId: ref.id, kind: 'text', status: 'queued', title: 'Chat with Anna' });
    expect(doc).not.toHaveProperty('seq');
    expect(doc).not.toHaveProperty('vectorStoreId');
    repo.ingest(ref.id, doc.id, ['Backups run', 'at 02:00 UTC.']);
    const [read] = await store.internalDocuments(caller.teamId, ref.id, [doc.id]);
    expect(read).toMatchObject({ id: doc.id, status: 'completed', chunkCount: 2 });
    expect(await store.internalDocuments('team-b', ref.id, [doc.id])).toEqual([]);
    expect((await store.chunkedText(ref.id, doc.id)).text).toContain('Backups run');
    expect(await store.documentFile(caller.teamId, doc.id)).toMatchObject({
      filename: 'chat.md',
      mime: 'text/markdown',
    });
    await store.deleteInternalDocument(caller.teamId, ref.id, doc.id, { deleteFile: true });
    expect(await store.internalDocuments(caller.teamId, ref.id, [doc.id])).toEqual([]);
    expect(await store.documentFile(caller.teamId, doc.id)).toBeNull();
  });

  it('knowledge bases: found by id with their name; project stores and deleted ones are missing', async () => {
    const { store, knowledge } = setup();
    const kb = await knowledge.createStore(caller, { name: 'Handbook' });
    const internal = await store.createInternalStore(caller.teamId, 'project prj_1');
    expect(await store.knowledgeBase(caller.teamId, kb.store.id)).toEqual({ id: kb.store.id, name: 'Handbook' });
    await expect(store.knowledgeBase(caller.teamId, internal.id)).rejects.toMatchObject({ status: 404 });
    await expect(store.knowledgeBase('team-b', kb.store.id)).rejects.toMatchObject({ status: 404 });
    expect(await store.missingKnowledgeBases(caller.teamId, [kb.store.id, 'vs_gone'])).toEqual(new Set(['vs_gone']));
    expect(await store.searchableStore(caller.teamId, internal.id)).toMatchObject({ id: internal.id });
    expect(await store.searchableStore('team-b', internal.id)).toBeNull();
  });

  it('search hands out read models, never rows, and searches without a metadata filter', async () => {
    const { store, knowledge, search } = setup();
    const kb = await knowledge.createStore(caller, { name: 'Handbook' });
    const ref = await store.useStore(caller.teamId, kb.store.id);
    const doc = await knowledge.addText(caller, kb.store.id, { name: 'launch', text: 'The launch is on 4 May.' });
    search.hits = [
      {
        chunk: {
          id: '9',
          vectorStoreId: kb.store.id,
          documentId: doc.id,
          ordinal: 0,
          page: 2,
          text: 'The launch is on 4 May.',
          tokens: 7,
          contentHash: 'h',
          embedding: Buffer.alloc(8),
        },
        document: doc,
        score: 0.8,
      },
    ];
    const out = await store.search(caller, ref, { queries: ['launch?'], topK: 5, threshold: 0.1 }, 'r1', '/x');
    expect(search.calls).toEqual([{ store: kb.store.id, filter: null }]);
    expect(out.costMicro).toBe(42);
    expect(out.hits[0].chunk).toEqual({ id: 9, page: 2, text: 'The launch is on 4 May.', index: 0 });
    expect(out.hits[0].document).toMatchObject({ id: doc.id, storeId: kb.store.id, title: 'launch' });
    // the attributes as an object (or null), never the stored JSON text
    expect(out.hits[0].document.attributes).toBeNull();
    // filters are the vector-store search's: parsed for the engine, errors name the caller's field
    const filters = { type: 'eq', key: 'lang', value: 'en' };
    await store.search(
      caller,
      ref,
      { queries: ['q'], topK: 5, threshold: 0, filters, filtersParam: 'tools[0].filters' },
      'r2',
      '/x',
    );
    expect(search.calls[1]).toEqual({ store: kb.store.id, filter: filters });
    await expect(
      store.search(
        caller,
        ref,
        { queries: ['q'], topK: 5, threshold: 0, filters: { type: 'bogus' }, filtersParam: 'tools[0].filters' },
        'r3',
        '/x',
      ),
    ).rejects.toMatchObject({ status: 400, param: expect.stringMatching(/^tools\[0\]\.filters/) });
    expect(await store.maxChunkTokens([ref])).toBe(100);
    expect(store.holdMicro(ref, ['launch?'])).toBe(7);
  });
});
