import type { AppConfig } from '@app/config';
import { encodeVector } from '@app/retrieval';
import type { KbChunkEntity, KbDocumentEntity } from './entities/knowledge.entities';
import { KbSearchService } from './kb-search.service';
import type { KnowledgeRepository } from './knowledge.repository';

/** A 2-D direction at `deg` degrees from the query's: its cosine to the query is cos(deg). */
const at = (deg: number) => Float32Array.from([Math.cos((deg * Math.PI) / 180), Math.sin((deg * Math.PI) / 180), 0, 0]);
const cos = (deg: number) => Math.cos((deg * Math.PI) / 180);

/** The rows the search engine reads, kept in memory: chunk i of `angles` is document d<i>. */
function rows(angles: number[], keyword: number[]) {
  const docs = angles.map((_, i) => ({ id: `d${i}`, attributes: null }) as KbDocumentEntity);
  const chunks = angles.map((_, i) => ({ id: String(i + 1), documentId: `d${i}`, text: `t${i}` }) as KbChunkEntity);
  return {
    storeRevision: async () => 1,
    loadVectors: async () =>
      angles.map((deg, i) => ({
        id: i + 1,
        documentId: `d${i}`,
        contentHash: `h${i}`,
        embedding: encodeVector(at(deg)),
      })),
    keywordSearch: async (_s: string, _t: string[], limit: number) => keyword.slice(0, limit),
    documentsByIds: async (_s: string, ids: string[]) => docs.filter((d) => ids.includes(d.id)),
    chunksByIds: async (ids: number[]) => chunks.filter((c) => ids.includes(Number(c.id))),
  } as unknown as KnowledgeRepository;
}

function engine(angles: number[], keyword: number[]) {
  const config = { kbVectorCacheBytes: 1 << 20 } as AppConfig;
  const search = new KbSearchService(rows(angles, keyword), null!, null!, null!, null!, config);
  const store = { id: 'vs_1', teamId: 't', embeddingModel: 'local-embedding-small', dimensions: 4, revision: 1 };
  return (topK: number, threshold: number) =>
    search.rank(store, ['q'], [at(0)], { queries: ['q'], topK, threshold, filter: null });
}

describe('KbSearchService.rank (hybrid ranking)', () => {
  it('returns the fused order, scores being exact cosines, and the threshold applies to the cosine', async () => {
    // cosine order: chunk 1 > 2 > 3 > 4; the keyword leg ranks chunk 3 first, then 2
    const rank = engine([10, 40, 60, 80], [3, 2]);
    const hits = await rank(10, 0);
    expect(hits.map((h) => h.chunk.id)).toEqual(['3', '2', '1', '4']);
    hits.forEach((h, i) => expect(h.score).toBeCloseTo(cos([60, 40, 10, 80][i]), 5));
    // 0.3 drops chunk 4 (cos 80° ≈ 0.17) and keeps the keyword hit at cos 60° = 0.5
    expect((await rank(10, 0.3)).map((h) => h.chunk.id)).toEqual(['3', '2', '1']);
    expect((await rank(10, 0.6)).map((h) => h.chunk.id)).toEqual(['2', '1']);
  });

  it('the first k results do not depend on top_k', async () => {
    const angles = Array.from({ length: 120 }, (_, i) => (i * 37) % 90);
    const keyword = Array.from({ length: 60 }, (_, i) => ((i * 53) % 120) + 1);
    const rank = engine(angles, keyword);
    const all = (await rank(50, 0.1)).map((h) => h.chunk.id);
    expect(all).toHaveLength(50);
    for (const k of [1, 3, 5, 10, 25]) expect((await rank(k, 0.1)).map((h) => h.chunk.id)).toEqual(all.slice(0, k));
  });
});
