import { newId } from '@app/common';
import { KnowledgeRepository } from '@app/knowledge/knowledge.repository';
import { RawSql } from '@app/database';
import {
  IngestJobEntity,
  KbChunkEntity,
  KbDocumentEntity,
  VectorStoreEntity,
} from '@app/knowledge/entities/knowledge.entities';
import { keywordTerms } from '@app/retrieval';
import { DataSource } from 'typeorm';
import { Factories } from '../factories';
import { ManualClock } from '../support/manual-clock';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';

/**
 * The knowledge repository against a real database (SQLite; Postgres when configured): atomic job
 * claims by two replicas, re-claiming a crashed replica's job, the atomic chunk swap, the limits.
 * The apps run with INGEST_CONCURRENCY=0 so only this spec claims jobs.
 */
describe(`knowledge repository on ${backendKind()}`, () => {
  let a: TestApp;
  let b: TestApp;
  let repoA: KnowledgeRepository;
  let repoB: KnowledgeRepository;
  let make: Factories;
  const clock = new ManualClock(Date.UTC(2026, 10, 22, 9, 0, 0));

  beforeAll(async () => {
    a = await createTestApp({ clock, env: { INGEST_CONCURRENCY: '0' } });
    b = await createTestApp({ clock, env: { INGEST_CONCURRENCY: '0' }, shareBackendWith: a });
    repoA = a.get(KnowledgeRepository);
    repoB = b.get(KnowledgeRepository);
    make = new Factories(a);
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  async function store(teamId: string): Promise<string> {
    const id = `vs_${newId().replace(/-/g, '').slice(0, 24)}`;
    await repoA.insertStore({
      id,
      teamId,
      name: 'm',
      description: null,
      metadata: null,
      embeddingModel: 'local-embedding-small',
      dimensions: 4,
      revision: 0,
      createdAt: clock.now(),
      lastActiveAt: clock.now(),
    });
    return id;
  }

  function doc(
    teamId: string,
    vectorStoreId: string,
    kind: KbDocumentEntity['kind'] = 'text',
  ): Omit<KbDocumentEntity, 'seq'> {
    const now = clock.now();
    return {
      id: `file-${newId().replace(/-/g, '').slice(0, 24)}`,
      vectorStoreId,
      teamId,
      kind,
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
  }
  const job = (d: Omit<KbDocumentEntity, 'seq'>) => ({
    vectorStoreId: d.vectorStoreId,
    documentId: d.id,
    teamId: d.teamId,
    status: 'queued' as const,
    attempts: 0,
    runAfter: clock.now(),
    leaseOwner: null,
    leaseUntil: null,
    lastError: null,
    createdAt: clock.now(),
    updatedAt: clock.now(),
  });

  it('two replicas claiming concurrently never take the same job', async () => {
    const team = await make.team(0);
    const vs = await store(team.id);
    for (let i = 0; i < 20; i++) {
      const d = doc(team.id, vs);
      expect(await repoA.addDocument(d, job(d), 100)).toBe('added');
    }
    const claims = await Promise.all(
      Array.from({ length: 40 }, (_, i) => (i % 2 ? repoA : repoB).claimJob(i % 2 ? 'a' : 'b', clock.now(), 60_000)),
    );
    const taken = claims.filter((c) => c !== null && c.vectorStoreId === vs).map((c) => c!.documentId);
    expect(taken).toHaveLength(20);
    expect(new Set(taken).size).toBe(20);
    expect(await repoA.claimJob('a', clock.now(), 60_000)).toBeNull();
    for (const c of claims)
      if (c) await repoA.failJob(Number(c.id), c.vectorStoreId, c.documentId, 'test', 'done', clock.now());
  });

  it('a job whose lease ran out (its replica crashed) is claimed again, with the attempt counted', async () => {
    const team = await make.team(0);
    const vs = await store(team.id);
    const d = doc(team.id, vs);
    await repoA.addDocument(d, job(d), 100);
    const first = await repoA.claimJob('crashed', clock.now(), 60_000);
    expect(first?.documentId).toBe(d.id);
    expect(await repoB.claimJob('b', clock.now(), 60_000)).toBeNull();
    clock.advance(60_001);
    const again = await repoB.claimJob('b', clock.now(), 60_000);
    expect(again).toMatchObject({ documentId: d.id, attempts: 2 });
  });

  it('the chunk swap is all or nothing, and a reader sees the old or the new chunks', async () => {
    const team = await make.team(0);
    const vs = await store(team.id);
    const d = doc(team.id, vs);
    await repoA.addDocument(d, job(d), 100);
    const j = (await repoA.claimJob('a', clock.now(), 60_000))!;
    const vec = Buffer.alloc(16, 1);
    const chunk = (i: number, text: string) => ({
      ordinal: i,
      page: null,
      text,
      tokens: 1,
      contentHash: `${text}-${i}`.padEnd(64, '0'),
      embedding: vec,
    });
    expect(
      await repoA.swapChunks(
        vs,
        d.id,
        [chunk(0, 'old a'), chunk(1, 'old b')],
        { status: 'completed', chunkCount: 2, updatedAt: clock.now() },
        Number(j.id),
      ),
    ).toBe(true);
    const rev1 = await repoA.storeRevision(vs);
    // a swap that fails half-way (a chunk violates NOT NULL) leaves the old chunks and the revision
    const broken = { ...chunk(1, 'new b'), text: null as unknown as string };
    await expect(
      repoA.swapChunks(
        vs,
        d.id,
        [chunk(0, 'new a'), broken],
        { status: 'completed', chunkCount: 2, updatedAt: clock.now() },
        Number(j.id),
      ),
    ).rejects.toThrow();
    const ids = (await repoA.loadVectors(vs)).map((r) => r.id);
    expect((await repoA.chunksByIds(ids)).map((c) => c.text).sort()).toEqual(['old a', 'old b']);
    expect(await repoA.storeRevision(vs)).toBe(rev1);
    // concurrent readers during a good swap: every read is 2 old or 3 new chunks, never a mix
    const reads = Array.from({ length: 10 }, async () =>
      (await repoB.chunksByIds((await repoB.loadVectors(vs)).map((r) => r.id)))
        .map((c) => c.text)
        .sort()
        .join('|'),
    );
    const swap = repoA.swapChunks(
      vs,
      d.id,
      [chunk(0, 'new a'), chunk(1, 'new b'), chunk(2, 'new c')],
      { status: 'completed', chunkCount: 3, updatedAt: clock.now() },
      Number(j.id),
    );
    const seen = new Set(await Promise.all(reads));
    await swap;
    for (const s of seen) expect(['old a|old b', 'new a|new b|new c']).toContain(s);
    expect((await repoA.storeRevision(vs))!).toBe(rev1! + 1);
    // swapping chunks of a deleted document writes nothing
    expect(await repoA.deleteDocument(team.id, vs, d.id)).toBe(true);
    expect(
      await repoA.swapChunks(
        vs,
        d.id,
        [chunk(0, 'late')],
        { status: 'completed', updatedAt: clock.now() },
        Number(j.id),
      ),
    ).toBe(false);
    expect(await repoA.loadVectors(vs)).toEqual([]);
  });

  it('deleting a knowledge base while its documents are finished, failed, requeued, cancelled or deleted: no deadlock, nothing left behind', async () => {
    // every write transaction under a store locks the store row first; before that rule, deleting a
    // store (store → chunks → jobs → documents) deadlocked on Postgres with a chunk swap finishing
    // (chunks → document → job → store) — the project-deletion 500 CI caught
    const vec = Buffer.alloc(16, 1);
    const chunks = (n: number, tag: string) =>
      Array.from({ length: n }, (_, i) => ({
        ordinal: i,
        page: null,
        text: `${tag} ${i}`,
        tokens: 1,
        contentHash: `${tag}-${i}`.padEnd(64, '0'),
        embedding: vec,
      }));
    const leftIn = async (vs: string) => {
      const ds = a.get(DataSource);
      const [chunks, jobs, documents] = await Promise.all(
        [KbChunkEntity, IngestJobEntity, KbDocumentEntity].map((e) =>
          ds.getRepository(e).countBy({ vectorStoreId: vs }),
        ),
      );
      return { chunks, jobs, documents };
    };
    // SQLite is the single-replica shape: there the concurrency is within one replica
    const other = backendKind() === 'postgres' ? repoB : repoA;
    for (let round = 0; round < 6; round++) {
      const team = await make.team(0);
      const vs = await store(team.id);
      const batchId = `vsfb_${newId().replace(/-/g, '').slice(0, 24)}`;
      await repoA.insertBatch({
        id: batchId,
        vectorStoreId: vs,
        teamId: team.id,
        cancelled: 0,
        createdAt: clock.now(),
      });
      const docs = Array.from({ length: 24 }, (_, i) => ({
        ...doc(team.id, vs),
        batchId: i % 4 === 3 ? batchId : null,
      }));
      for (const d of docs) expect(await repoA.addDocument(d, job(d), 100)).toBe('added');
      const claimed = new Map<string, number>();
      for (let i = 0; i < 18; i++) {
        const j = (await repoA.claimJob('w', clock.now(), 60_000))!;
        if (j.vectorStoreId === vs) claimed.set(j.documentId, Number(j.id));
      }
      // the second replica deletes the store half-way through the other writers (SQLite runs them in call order)
      const write = (d: (typeof docs)[number], i: number): Promise<unknown> => {
        const repo = i % 2 ? repoA : other;
        const jobId = claimed.get(d.id);
        if (i % 4 === 3)
          return repo.cancelBatch(
            { id: batchId, vectorStoreId: vs, teamId: team.id, cancelled: 0, createdAt: 0 },
            clock.now(),
          );
        if (jobId === undefined) return repo.requeue({ ...d, seq: 0 } as KbDocumentEntity, job(d));
        if (i % 4 === 0)
          return repo.swapChunks(
            vs,
            d.id,
            chunks(300, d.id),
            { status: 'completed', chunkCount: 300, updatedAt: clock.now() },
            jobId,
          );
        if (i % 4 === 1) return repo.failJob(jobId, vs, d.id, 'test', 'failed', clock.now());
        return repo.deleteDocument(team.id, vs, d.id);
      };
      const writers: Promise<unknown>[] = [];
      docs.forEach((d, i) => {
        if (i === docs.length / 2) writers.push(other.deleteStore(team.id, vs));
        writers.push(write(d, i));
      });
      const results = await Promise.allSettled(writers);
      expect(
        results.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason)),
      ).toEqual([]);
      expect(await repoA.findStore(team.id, vs)).toBeNull();
      expect(await leftIn(vs)).toEqual({ chunks: 0, jobs: 0, documents: 0 });
    }
  }, 60_000);

  it('chunk swaps of one store insert side by side (Postgres: before the store lock); each document keeps only its latest swap', async () => {
    const team = await make.team(0);
    const vs = await store(team.id);
    const docs = [doc(team.id, vs), doc(team.id, vs)];
    for (const d of docs) expect(await repoA.addDocument(d, job(d), 100)).toBe('added');
    const jobs = new Map<string, number>();
    for (let i = 0; i < 2; i++) {
      const j = (await repoA.claimJob('w', clock.now(), 60_000))!;
      jobs.set(j.documentId, Number(j.id));
    }
    const rows = (n: number, tag: string) =>
      Array.from({ length: n }, (_, i) => ({
        ordinal: i,
        page: null,
        text: `${tag} chunk ${i}`,
        tokens: 3,
        contentHash: `${tag}-${i}`.padEnd(64, '0'),
        embedding: Buffer.alloc(16, i % 7),
      }));
    const texts = async (documentId: string) =>
      (
        await a
          .get(DataSource)
          .getRepository(KbChunkEntity)
          .find({ where: { vectorStoreId: vs, documentId }, order: { ordinal: 'ASC' } })
      ).map((c) => c.text);
    const swap = (repo: KnowledgeRepository, d: (typeof docs)[number], tag: string, n: number) =>
      repo.swapChunks(
        vs,
        d.id,
        rows(n, tag),
        { status: 'completed', chunkCount: n, updatedAt: clock.now() },
        jobs.get(d.id)!,
      );

    if (backendKind() === 'postgres') {
      // another transaction holds the store row: both swaps insert their rows, then wait for the lock
      const ds = a.get(DataSource);
      const holder = ds.createQueryRunner();
      await holder.startTransaction();
      const stores = new RawSql(ds).table(VectorStoreEntity);
      await holder.query(`SELECT id FROM ${stores} WHERE id = $1 FOR UPDATE`, [vs]);
      const swaps = [swap(repoA, docs[0], 'first', 250), swap(repoB, docs[1], 'second', 250)];
      let waitingAfterInsert = 0;
      for (let i = 0; i < 200 && waitingAfterInsert < 2; i++) {
        await new Promise((r) => setTimeout(r, 25));
        const [row] = (await ds.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity w
            WHERE w.wait_event_type = 'Lock' AND w.query LIKE '%FOR UPDATE%'
              AND EXISTS (SELECT 1 FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
                           WHERE l.pid = w.pid AND c.relname = 'kb_chunks' AND l.mode = 'RowExclusiveLock')`,
        )) as Array<{ n: number }>;
        waitingAfterInsert = row.n;
      }
      expect(waitingAfterInsert).toBe(2);
      // rows not committed are nobody's to see
      expect(await texts(docs[0].id)).toEqual([]);
      await holder.commitTransaction();
      await holder.release();
      expect(await Promise.all(swaps)).toEqual([true, true]);
    } else {
      expect(await Promise.all([swap(repoA, docs[0], 'first', 250), swap(repoA, docs[1], 'second', 250)])).toEqual([
        true,
        true,
      ]);
    }
    expect(await texts(docs[0].id)).toHaveLength(250);
    expect((await texts(docs[1].id)).every((t) => t.startsWith('second '))).toBe(true);
    // a later run of the same document (and a run of the other at the same time): only its rows remain
    const second = backendKind() === 'postgres' ? repoB : repoA;
    expect(await Promise.all([swap(repoA, docs[0], 'again', 3), swap(second, docs[1], 'redo', 2)])).toEqual([
      true,
      true,
    ]);
    expect(await texts(docs[0].id)).toEqual(['again chunk 0', 'again chunk 1', 'again chunk 2']);
    expect(await texts(docs[1].id)).toEqual(['redo chunk 0', 'redo chunk 1']);
    // an image document: its swap leaves no chunks
    expect(await swap(repoA, docs[0], 'none', 0)).toBe(true);
    expect(await texts(docs[0].id)).toEqual([]);
  });

  it('limits hold under concurrent adds: 100 documents and 100 links per knowledge base', async () => {
    const team = await make.team(0);
    const vs = await store(team.id);
    const docs = Array.from({ length: 110 }, () => doc(team.id, vs, 'text'));
    // SQLite is the single-replica shape: there the concurrency is within one replica
    const second = backendKind() === 'postgres' ? repoB : repoA;
    const outcomes = await Promise.all(docs.map((d, i) => (i % 2 ? repoA : second).addDocument(d, job(d), 100)));
    expect(outcomes.filter((o) => o === 'added')).toHaveLength(100);
    expect(outcomes.filter((o) => o === 'limit')).toHaveLength(10);
    const link = doc(team.id, vs, 'link');
    expect(await repoA.addDocument(link, job(link), 100)).toBe('added');
    const stats = (await repoA.storeStats([vs])).get(vs)!;
    expect(stats.byKind).toEqual({ file: 0, text: 100, link: 1 });
  });

  it('the keyword leg matches stems (English and Russian), leaves stop words out, and ranks rare terms above common ones', async () => {
    const team = await make.team(0);
    const vs = await store(team.id);
    const texts = [
      'The backup servers were running all night.',
      'Резервные копии документов хранятся девяносто дней.',
      'Zebrafish habitat notes.',
      ...Array.from({ length: 6 }, (_, i) => `Quarterly report ${i}: the report of the report season.`),
    ];
    const chunkOf = new Map<string, number>();
    for (const [i, text] of texts.entries()) {
      const d = doc(team.id, vs);
      await repoA.addDocument(d, job(d), 100);
      const chunk = {
        ordinal: 0,
        page: null,
        text,
        tokens: 8,
        contentHash: `h${i}`.padEnd(64, '0'),
        embedding: Buffer.alloc(16),
      };
      expect(
        await repoA.swapChunks(vs, d.id, [chunk], { status: 'completed', chunkCount: 1, updatedAt: clock.now() }, 0),
      ).toBe(true);
      chunkOf.set(text, Number((await repoA.documentChunks(vs, d.id))[0].id));
    }
    const search = (q: string) => repoB.keywordSearch(vs, keywordTerms(q), 50);
    // other word forms: "run"/"running", "server"/"servers", "документ"/"документов", "хранится"/"хранятся"
    expect(await search('server run')).toEqual([chunkOf.get(texts[0])]);
    expect(await search('документ хранится')).toEqual([chunkOf.get(texts[1])]);
    // stop words are not indexed: "the" and "of" find nothing
    expect(await search('the of')).toEqual([]);
    // "report" is in 6 of 9 chunks (3 times each), "zebrafish" in one: the rare term wins
    const ranked = await search('report zebrafish');
    expect(ranked).toHaveLength(7);
    expect(ranked[0]).toBe(chunkOf.get(texts[2]));
    // with the knowledge base's revision, the term statistics are kept (Postgres) and rank the same
    const revision = (await repoB.storeRevision(vs))!;
    for (let i = 0; i < 2; i++)
      expect(await repoB.keywordSearch(vs, keywordTerms('report zebrafish'), 50, revision)).toEqual(ranked);
  });
});
