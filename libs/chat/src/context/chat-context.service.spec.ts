import { ApiError } from '@app/common';
import type { Caller } from '@app/auth';
import { ModelEntry, TokenCounter, TokenizerService } from '@app/providers';
import type { RerankInput, RerankService } from '@app/rerank';
import { RerankScoring } from '@app/rerank/rerank-scoring';
import { DocumentReader, ProjectContext, ProjectContextSource, StoreQuery, StoreSearch } from './ports';
import { ChatContextService, ContextRequest, withContext } from './chat-context.service';

/** In-memory implementation of the projects port (the real one lives in libs/projects). */
class InMemoryProjects extends ProjectContextSource {
  readonly byTeam = new Map<string, ProjectContext>();
  async load(teamId: string, projectId: string): Promise<ProjectContext | null> {
    const p = this.byTeam.get(`${teamId}/${projectId}`);
    return p ?? null;
  }
}

interface FakeChunk {
  store: string;
  doc: string;
  text: string;
  /** cosine the fake search reports */
  score: number;
  /** position in the search's fused order (default: by score) */
  rank?: number;
  /** the chunk's position in its document (default 3) */
  index?: number;
}

/** Knowledge as seen by chat: stores, documents' full text, and a search that applies the threshold it is given. */
class FakeKnowledge {
  stores = new Set(['vs_project', 'vs_kb']);
  texts = new Map<string, string>();
  chunks: FakeChunk[] = [];
  searches: { store: string; input: StoreQuery }[] = [];
  async requireStore(teamId: string, id: string) {
    if (teamId !== 'team-a' || !this.stores.has(id))
      throw ApiError.notFound(
        `No such knowledge base (vector store): ${id}`,
        'vector_store_not_found',
        'vector_store_id',
      );
    return { id, teamId, embeddingModel: this.models.get(id) ?? 'local-embedding-small' };
  }
  /** store id → its embedding model (default local-embedding-small) */
  models = new Map<string, string>();
  async useStore(teamId: string, id: string) {
    return this.requireStore(teamId, id);
  }
  async searchableStore(teamId: string, id: string) {
    return teamId === 'team-a' && this.stores.has(id)
      ? { id, teamId, embeddingModel: this.models.get(id) ?? 'local-embedding-small' }
      : null;
  }
  async chunkedText(storeId: string, documentId: string) {
    const text = this.texts.get(`${storeId}/${documentId}`) ?? '';
    return { text, pages: [{ page: null, text }] };
  }
  async search(_caller: Caller, store: { id: string }, input: StoreQuery) {
    this.searches.push({ store: store.id, input });
    const hits = this.chunks
      .filter((c) => c.store === store.id && c.score >= input.threshold)
      .sort((a, b) => (a.rank ?? 0) - (b.rank ?? 0) || b.score - a.score)
      .slice(0, input.topK)
      .map((c, i) => ({
        chunk: { id: i, page: 1, text: c.text, index: c.index ?? 3 },
        document: { id: c.doc, title: `${c.doc}.pdf`, filename: `${c.doc}.pdf`, url: null },
        score: c.score,
      }));
    return { hits, queryTokens: 5, costMicro: 7, elapsedMs: 0, engineMs: 0 };
  }
}

/** Rerank: scores by a scripted map of text → score (default: keeps the search order), charges 11 µRUB. */
class FakeRerank {
  scores = new Map<string, number>();
  calls: RerankInput[] = [];
  assertAllowed(): void {}
  async rerank(_caller: Caller, input: RerankInput) {
    this.calls.push(input);
    const results = input.parsed.items.map((it, i) => ({
      rank: i + 1,
      id: it.id,
      data: it.data,
      metadata: {},
      similarity_score: this.scores.get(it.data) ?? 0.5,
      similarity_percentage: '',
    }));
    return {
      ranked: {
        results,
        total_documents: results.length,
        filtered_documents: results.length,
        returned_documents: results.length,
      },
      chargedMicro: 11,
    };
  }
}

const caller: Caller = { teamId: 'team-a', apiKeyId: 'key-1' } as Caller;
const model = (over: Partial<ModelEntry> = {}): ModelEntry =>
  ({
    key: 'm',
    context_window: 32768,
    max_output_tokens: 1024,
    supports_images: false,
    full_context: false,
    ...over,
  }) as ModelEntry;

function project(over: Partial<ProjectContext> = {}): ProjectContext {
  return {
    id: 'prj_1',
    name: 'P',
    mode: 'default',
    rag: { top_k: 15, rerank: true, file_threshold: 0.3, kb_threshold: 0.1 },
    storeId: 'vs_project',
    materials: [
      { id: 'mat_old', kind: 'file', title: 'old.pdf', url: null, documentId: 'doc_old' },
      { id: 'mat_big', kind: 'link', title: 'Big page', url: 'https://x.example/big', documentId: 'doc_big' },
    ],
    knowledgeBaseIds: [],
    images: [],
    ...over,
  };
}

describe('ChatContextService', () => {
  let projects: InMemoryProjects;
  let knowledge: FakeKnowledge;
  let rerank: FakeRerank;
  let service: ChatContextService;
  const tokens = new TokenCounter('o200k_base');
  const req = (over: Partial<ContextRequest> = {}): ContextRequest => ({
    caller,
    requestId: 'r1',
    endpoint: '/api/v1/chat',
    model: model(),
    pdfs: [],
    query: 'what is the launch date?',
    promptTokens: 20,
    maxOutputTokens: 1024,
    requestImages: 0,
    ...over,
  });

  beforeEach(() => {
    projects = new InMemoryProjects();
    knowledge = new FakeKnowledge();
    rerank = new FakeRerank();
    const reader = { fragments: () => [] } as unknown as DocumentReader;
    service = new ChatContextService(
      knowledge as unknown as StoreSearch,
      new RerankScoring(rerank as unknown as RerankService),
      reader,
      { chat: tokens } as unknown as TokenizerService,
      projects,
    );
  });

  it('no project, knowledge base or PDF → no context at all', async () => {
    expect(await service.assemble(req())).toBeNull();
  });

  it('unknown project, another team’s project, or no projects provider → 404 project_not_found', async () => {
    projects.byTeam.set('team-b/prj_1', project());
    await expect(service.assemble(req({ projectId: 'prj_1' }))).rejects.toMatchObject({
      status: 404,
      code: 'project_not_found',
      param: 'project_id',
    });
    const bare = new ChatContextService(
      knowledge as unknown as StoreSearch,
      new RerankScoring(rerank as unknown as RerankService),
      {} as DocumentReader,
      { chat: tokens } as unknown as TokenizerService,
    );
    await expect(bare.assemble(req({ projectId: 'prj_1' }))).rejects.toMatchObject({
      status: 404,
      code: 'project_not_found',
    });
  });

  it('unknown knowledge_base_id → 404 knowledge_base_not_found', async () => {
    await expect(service.assemble(req({ knowledgeBaseId: 'vs_nope' }))).rejects.toMatchObject({
      status: 404,
      code: 'knowledge_base_not_found',
      param: 'knowledge_base_id',
    });
  });

  it('full mode: materials in full while they fit; the one that does not fit falls back to retrieval over that document only', async () => {
    projects.byTeam.set('team-a/prj_1', project({ mode: 'big_docs_mode' }));
    knowledge.texts.set('vs_project/doc_old', 'The launch date is 4 May.');
    knowledge.texts.set('vs_project/doc_big', 'filler text. '.repeat(20_000));
    knowledge.chunks.push({
      store: 'vs_project',
      doc: 'doc_big',
      text: 'Big page fragment about the launch date.',
      score: 0.6,
    });
    knowledge.chunks.push({ store: 'vs_project', doc: 'doc_old', text: 'already given in full', score: 0.9 });
    const ctx = (await service.assemble(req({ projectId: 'prj_1' })))!;
    expect(ctx.info.mode).toBe('full');
    expect(ctx.info.materials_full).toEqual(['mat_old']);
    expect(ctx.info.fragments).toBe(1);
    expect(ctx.sources).toEqual([
      {
        n: 1,
        material_id: 'mat_old',
        kind: 'file',
        title: 'old.pdf',
        page: null,
        url: null,
        score: null,
        document_id: 'doc_old',
        filename: null,
        chunk_index: null,
      },
      {
        n: 2,
        material_id: 'mat_big',
        kind: 'link',
        title: 'Big page',
        page: 1,
        url: 'https://x.example/big',
        score: 0.5,
        document_id: 'doc_big',
        filename: 'doc_big.pdf',
        chunk_index: 3,
      },
    ]);
    expect(ctx.message).toContain('<source id="1" title="old.pdf">\nThe launch date is 4 May.\n</source>');
    expect(ctx.message).not.toContain('already given in full');
    expect(ctx.info.notes.join(' ')).toMatch(/did not fit .* Big page/);
    expect(ctx.info.tokens).toBeLessThanOrEqual(ctx.info.budget_tokens);
    expect(ctx.retrievalMicro).toBe(7 + 11);
  });

  it('a full_context model takes the full path even in default mode', async () => {
    projects.byTeam.set('team-a/prj_1', project());
    knowledge.texts.set('vs_project/doc_old', 'Alpha.');
    knowledge.texts.set('vs_project/doc_big', 'Beta.');
    const ctx = (await service.assemble(req({ projectId: 'prj_1', model: model({ full_context: true }) })))!;
    expect(ctx.info).toMatchObject({ mode: 'full', materials_full: ['mat_old', 'mat_big'], fragments: 0 });
    expect(knowledge.searches).toHaveLength(0);
    expect(rerank.calls).toHaveLength(0);
  });

  it('RAG: project store at 0.3, knowledge bases at 0.1, 30 candidates, reranked, best top_k kept', async () => {
    projects.byTeam.set(
      'team-a/prj_1',
      project({
        knowledgeBaseIds: ['vs_kb'],
        rag: { top_k: 15, rerank: true, file_threshold: 0.3, kb_threshold: 0.1 },
      }),
    );
    knowledge.chunks.push({ store: 'vs_project', doc: 'doc_old', text: 'project 0.2 (below 0.3)', score: 0.2 });
    knowledge.chunks.push({ store: 'vs_project', doc: 'doc_old', text: 'project 0.35', score: 0.35 });
    knowledge.chunks.push({ store: 'vs_kb', doc: 'kbdoc', text: 'kb 0.2 (above 0.1)', score: 0.2 });
    for (let i = 0; i < 40; i++)
      knowledge.chunks.push({ store: 'vs_kb', doc: 'kbdoc', text: `kb filler ${i}`, score: 0.11 });
    rerank.scores.set('kb 0.2 (above 0.1)', 0.9);
    rerank.scores.set('project 0.35', 0.8);
    const ctx = (await service.assemble(req({ projectId: 'prj_1' })))!;
    expect(knowledge.searches.map((s) => [s.store, s.input.threshold, s.input.topK])).toEqual([
      ['vs_project', 0.3, 30],
      ['vs_kb', 0.1, 30],
    ]);
    expect(rerank.calls).toHaveLength(1);
    expect(rerank.calls[0].parsed.items).toHaveLength(30);
    expect(ctx.info.mode).toBe('rag');
    expect(ctx.info.fragments).toBe(15);
    expect(ctx.sources.slice(0, 2).map((s) => [s.kind, s.material_id, s.score])).toEqual([
      ['knowledge_base', 'vs_kb', 0.9],
      ['file', 'mat_old', 0.8],
    ]);
    expect(ctx.message).not.toContain('below 0.3');
    expect(ctx.retrievalMicro).toBe(7 + 7 + 11);
  });

  it("without rerank: the searches' fused order, stores merged by reciprocal rank — not re-sorted by cosine", async () => {
    projects.byTeam.set(
      'team-a/prj_1',
      project({
        knowledgeBaseIds: ['vs_kb'],
        rag: { top_k: 15, rerank: false, file_threshold: 0.3, kb_threshold: 0.1 },
      }),
    );
    // each search returns its fused order, which is not its cosine order
    knowledge.chunks.push({ store: 'vs_project', doc: 'doc_old', text: 'project first', score: 0.4, rank: 1 });
    knowledge.chunks.push({ store: 'vs_project', doc: 'doc_old', text: 'project second', score: 0.9, rank: 2 });
    knowledge.chunks.push({ store: 'vs_kb', doc: 'kbdoc', text: 'kb first', score: 0.2, rank: 1 });
    knowledge.chunks.push({ store: 'vs_kb', doc: 'kbdoc', text: 'kb second', score: 0.7, rank: 2 });
    const ctx = (await service.assemble(req({ projectId: 'prj_1' })))!;
    expect(rerank.calls).toHaveLength(0);
    expect(ctx.sources.map((s) => [s.kind, s.score])).toEqual([
      ['file', 0.4],
      ['knowledge_base', 0.2],
      ['file', 0.9],
      ['knowledge_base', 0.7],
    ]);
  });

  it('knowledge_base_id alone: default settings (top_k 15, threshold 0.1, rerank on)', async () => {
    for (let i = 0; i < 20; i++)
      knowledge.chunks.push({ store: 'vs_kb', doc: 'kbdoc', text: `fact ${i}`, score: 0.15 });
    const ctx = (await service.assemble(req({ knowledgeBaseId: 'vs_kb', model: model({ full_context: true }) })))!;
    expect(knowledge.searches[0].input.threshold).toBe(0.1);
    expect(rerank.calls).toHaveLength(1);
    expect(ctx.info).toMatchObject({ mode: 'rag', fragments: 15 });
  });

  it('fragments beyond the budget are left out (greedy by score) and said so', async () => {
    knowledge.chunks.push({ store: 'vs_kb', doc: 'kbdoc', text: 'word '.repeat(5000), score: 0.5 });
    knowledge.chunks.push({ store: 'vs_kb', doc: 'kbdoc', text: 'small fact', score: 0.4 });
    rerank.scores.set('word '.repeat(5000), 0.9);
    rerank.scores.set('small fact', 0.3);
    const ctx = (await service.assemble(
      req({
        knowledgeBaseId: 'vs_kb',
        model: model({ context_window: 4096, max_output_tokens: 512 }),
        maxOutputTokens: 512,
      }),
    ))!;
    expect(ctx.sources.map((s) => s.score)).toEqual([0.3]);
    expect(ctx.info.notes.join(' ')).toMatch(/1 relevant fragment\(s\) did not fit/);
  });

  it('project images: none to a model without image input (said so); otherwise up to 20 with the request’s own', async () => {
    const images = Array.from({ length: 3 }, (_, i) => ({
      materialId: `img${i}`,
      title: `i${i}.png`,
      mime: 'image/png',
      bytes: Buffer.from([i]),
    }));
    projects.byTeam.set('team-a/prj_1', project({ materials: [], images }));
    const blind = (await service.assemble(req({ projectId: 'prj_1' })))!;
    expect(blind.imageUrls).toEqual([]);
    expect(blind.info).toMatchObject({ images: 0, images_skipped: 3 });
    expect(blind.info.notes.join(' ')).toMatch(/does not accept images/);
    const vision = (await service.assemble(
      req({ projectId: 'prj_1', model: model({ supports_images: true }), requestImages: 18 }),
    ))!;
    expect(vision.imageUrls).toEqual(['data:image/png;base64,AA==', 'data:image/png;base64,AQ==']);
    expect(vision.info).toMatchObject({ images: 2, images_skipped: 1 });
    const msgs = withContext(
      [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'q' },
      ],
      vision,
    );
    expect(msgs[1].content).toEqual([
      { type: 'text', text: 'q' },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,AA==' } },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,AQ==' } },
    ]);
  });

  it("a key's allowed_models must hold the project store's and every knowledge base's embedder: 403 before any search or rerank", async () => {
    projects.byTeam.set('team-a/prj_1', project({ knowledgeBaseIds: ['vs_kb'] }));
    knowledge.models.set('vs_project', 'local-embedding-large');
    const limited = (models: string[]) => ({ ...caller, allowedModels: models }) as Caller;
    await expect(
      service.assemble(req({ caller: limited(['local-embedding-small']), projectId: 'prj_1' })),
    ).rejects.toMatchObject({ status: 403, code: 'model_not_allowed', param: 'project_id' });
    await expect(
      service.assemble(req({ caller: limited(['local-embedding-large']), projectId: 'prj_1' })),
    ).rejects.toMatchObject({ status: 403, code: 'model_not_allowed', param: 'project_id' });
    expect(knowledge.searches).toHaveLength(0);
    expect(rerank.calls).toHaveLength(0);
  });

  it('the context message goes after the caller’s system turns, before the conversation', () => {
    const ctx = {
      message: 'CTX',
      imageUrls: [],
      sources: [],
      info: {} as never,
      retrievalMicro: 0,
      elapsedMs: 0,
      searchMs: 0,
      rerankMs: 0,
      details: [],
    };
    const out = withContext(
      [
        { role: 'system', content: 'S' },
        { role: 'user', content: 'a' },
        { role: 'assistant', content: 'b' },
        { role: 'user', content: 'c' },
      ],
      ctx,
    );
    expect(out.map((m) => m.content)).toEqual(['S', 'CTX', 'a', 'b', 'c']);
  });
});
