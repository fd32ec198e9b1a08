import { newId } from '@app/common';
import { SearchTerms1795800000000 } from '@app/database/migrations/1795800000000-search-terms';
import { KnowledgeRepository } from '@app/knowledge/knowledge.repository';
import { KbDocumentEntity } from '@app/knowledge/entities/knowledge.entities';
import { LexicalEmbedder } from '@app/providers/local/lexical-embedder';
import { decodeVector, encodeVector, keywordTerms } from '@app/retrieval';
import { DataSource, QueryRunner } from 'typeorm';
import { Factories } from '../factories';
import { ManualClock } from '../support/manual-clock';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';

/**
 * The stemmed keyword index migration over existing chunks (SQLite; Postgres when configured):
 * chunks written before it (raw-text keyword index, vectors of the unstemmed lexical embedder) are
 * found by stems afterwards, and the offline models' chunks carry the current embedder's vectors.
 */
describe(`stemmed keyword index migration on ${backendKind()}`, () => {
  let app: TestApp;
  let repo: KnowledgeRepository;
  let make: Factories;
  const clock = new ManualClock(Date.UTC(2026, 10, 26, 9, 0, 0));

  beforeAll(async () => {
    app = await createTestApp({ clock, env: { INGEST_CONCURRENCY: '0' } });
    repo = app.get(KnowledgeRepository);
    make = new Factories(app);
  });
  afterAll(async () => {
    await app?.close();
  });

  /** A knowledge base with one document of one chunk; `raw`: the chunk row written as before the migration. */
  async function storeWithChunk(
    teamId: string,
    embeddingModel: string,
    text: string,
    raw?: QueryRunner,
  ): Promise<string> {
    const id = `vs_${newId().replace(/-/g, '').slice(0, 24)}`;
    const now = clock.now();
    await repo.insertStore({
      id,
      teamId,
      name: 'm',
      description: null,
      metadata: null,
      embeddingModel,
      dimensions: 8,
      revision: 0,
      createdAt: now,
      lastActiveAt: now,
    });
    const d: Omit<KbDocumentEntity, 'seq'> = {
      id: `file-${newId().replace(/-/g, '').slice(0, 24)}`,
      vectorStoreId: id,
      teamId,
      kind: 'text',
      filename: 'f',
      title: null,
      url: null,
      finalUrl: null,
      attributes: null,
      chunking: 'auto',
      status: 'queued',
      lastErrorCode: null,
      lastErrorMessage: null,
      pages: 0,
      tokens: 0,
      chunkCount: 0,
      usageBytes: 0,
      contentHash: null,
      replacesId: null,
      batchId: null,
      createdAt: now,
      updatedAt: now,
    };
    const job = { vectorStoreId: id, documentId: d.id, teamId, status: 'queued' as const, attempts: 0, runAfter: now };
    await repo.addDocument(
      d,
      { ...job, leaseOwner: null, leaseUntil: null, lastError: null, createdAt: now, updatedAt: now },
      100,
    );
    const old = encodeVector(Float32Array.from([1, 0, 0, 0, 0, 0, 0, 0]));
    const chunk = { ordinal: 0, page: null, text, tokens: 5, contentHash: 'h'.padEnd(64, '0'), embedding: old };
    if (!raw) {
      await repo.swapChunks(id, d.id, [chunk], { status: 'completed', chunkCount: 1, updatedAt: now }, 0);
      return id;
    }
    const pg = raw.connection.options.type === 'postgres';
    const schema = (raw.connection.options as { schema?: string }).schema;
    const table = pg && schema ? `"${schema}"."kb_chunks"` : '"kb_chunks"';
    const p = (i: number) => (pg ? `$${i}` : '?');
    await raw.query(
      `INSERT INTO ${table} (vector_store_id, document_id, ordinal, page, text, tokens, content_hash, embedding) VALUES (${p(1)}, ${p(2)}, 0, NULL, ${p(3)}, 5, ${p(4)}, ${p(5)})`,
      [id, d.id, text, chunk.contentHash, old],
    );
    return id;
  }

  it('re-indexes existing chunks by stems and embeds the offline models’ chunks again', async () => {
    const migration = new SearchTerms1795800000000();
    const runner = app.get(DataSource).createQueryRunner();
    await runner.connect();
    try {
      // back to the raw-text keyword index, then chunks are written as before the migration
      await migration.down(runner);
      const team = await make.team(0);
      const text = 'The backup servers were running all night.';
      const local = await storeWithChunk(team.id, 'local-embedding-small', text, runner);
      const remote = await storeWithChunk(team.id, 'text-embedding-3-small', text, runner);
      const revision = (await repo.storeRevision(local))!;

      await migration.up(runner);

      for (const vs of [local, remote])
        expect(await repo.keywordSearch(vs, keywordTerms('server run'), 10)).toHaveLength(1);
      expect(await repo.keywordSearch(local, keywordTerms('the were'), 10)).toEqual([]);
      const [localRow] = await repo.loadVectors(local);
      expect(Array.from(decodeVector(localRow.embedding))).toEqual(Array.from(new LexicalEmbedder().embed(text, 8)));
      expect(await repo.storeRevision(local)).toBe(revision + 1);
      // another provider's vectors are left as they were
      const [remoteRow] = await repo.loadVectors(remote);
      expect(Array.from(decodeVector(remoteRow.embedding))).toEqual([1, 0, 0, 0, 0, 0, 0, 0]);
      // chunks written after the migration are indexed by stems too (the insert trigger / generated column)
      const later = await storeWithChunk(team.id, 'local-embedding-small', 'Резервные копии документов');
      expect(await repo.keywordSearch(later, keywordTerms('документ копия'), 10)).toHaveLength(1);
    } finally {
      await runner.release();
    }
  });
});
