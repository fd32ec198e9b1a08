import { AppConfig } from '@app/config';
import { ApiError, Clock, SharedCache } from '@app/common';
import { BillingService, MeterSpec } from '@app/billing';
import { EmbeddingsService } from '@app/embeddings';
import { LexicalEmbedder, ModelCatalogService, ProviderRegistry, TokenCounter, TokenizerService } from '@app/providers';
import { LocalEmbeddingProvider } from '@app/providers/local/local.providers';
import { parseRerankContent } from './engine';
import { MemoryRerankCacheIndex } from './rerank-cache.index';
import { RerankCacheStore } from './rerank-cache.store';
import { RerankService } from './rerank.service';
import { ENV_PROVIDERS } from '@app/providers';

class FakeBilling {
  charges: number[] = [];
  async meter<T>(spec: MeterSpec<T>) {
    if (spec.holdMicro > 1_000_000) throw ApiError.insufficientQuota('no');
    const result = await spec.run(spec.holdMicro);
    const c = spec.charge(result);
    if (c) this.charges.push(c.costMicro);
    return { result, charged: c ? { chargedMicro: c.costMicro, balanceAfterMicro: 0, ledgerEntryId: 1 } : null };
  }
}

class MapCache {
  private readonly m = new Map<string, unknown>();
  backend = 'memory' as const;
  available = true;
  async get<T>(k: string) {
    return this.m.get(k) as T | undefined;
  }
  async set(k: string, v: unknown) {
    this.m.set(k, v);
    return true;
  }
  async del(k: string) {
    return this.m.delete(k);
  }
}

describe('RerankService (unit: local embedder, in-memory cache and money path)', () => {
  const config = AppConfig.load(ENV_PROVIDERS);
  const embedder = new LexicalEmbedder();
  const tokens = new TokenCounter('cl100k_base');
  let calls: string[][];
  let billing: FakeBilling;
  let rerank: RerankService;

  beforeEach(() => {
    calls = [];
    const local = new LocalEmbeddingProvider(embedder, tokens, 1536);
    const registry = {
      isAvailable: () => true,
      embeddings: () => ({ embed: (req: { input: string[] }) => (calls.push(req.input), local.embed(req as never)) }),
    } as unknown as ProviderRegistry;
    const catalog = new ModelCatalogService(config, registry);
    billing = new FakeBilling();
    const store = new RerankCacheStore(
      new MapCache() as unknown as SharedCache,
      new MemoryRerankCacheIndex(),
      new Clock(),
      config,
    );
    rerank = new RerankService(
      catalog,
      new EmbeddingsService(registry, new TokenizerService(new TokenCounter('o200k_base'), tokens)),
      store,
      billing as unknown as BillingService,
    );
  });

  const docs = parseRerankContent([
    { id: 'a', data: 'The cafeteria menu changes every week' },
    { id: 'b', data: 'Reset your password in the security settings' },
    { id: 'c', data: 'Password resets require the security settings page' },
  ]);
  const run = (caching = true) =>
    rerank.rerank(
      { teamId: 't', apiKeyId: 'k1', keyPrefix: 'sk-' },
      {
        query: 'how to reset a password',
        parsed: docs,
        size: 'small',
        threshold: 0,
        topK: 3,
        caching,
        columns: {},
        endpoint: '/api/v1/rerank',
      },
      'r',
    );

  it('ranks by cosine, charges query + document tokens at the catalog price (200 RUB / 1M)', async () => {
    const out = await run();
    const ids = out.ranked.results.map((r) => r.id);
    expect(ids.slice(0, 2).sort()).toEqual(['b', 'c']);
    expect(ids.indexOf('a')).not.toBe(0);
    const scores = out.ranked.results.map((r) => r.similarity_score);
    expect([...scores].sort((x, y) => y - x)).toEqual(scores);
    expect(billing.charges).toEqual([(out.queryTokens + out.documentTokens) * 200]);
    expect(out.cacheStatus).toBe('stored');
  });

  it('a cache hit embeds the query only and charges it alone', async () => {
    await run();
    calls = [];
    const hit = await run();
    expect(hit.cacheStatus).toBe('hit');
    expect(calls).toEqual([['how to reset a password']]);
    expect(hit.documentTokens).toBe(0);
    expect(billing.charges.at(-1)).toBe(hit.queryTokens * 200);
  });

  it('a hold the balance cannot cover is refused before any embedding', async () => {
    const big = parseRerankContent(
      Array.from({ length: 200 }, (_, i) => ({ id: String(i), data: 'word '.repeat(40) + i })),
    );
    await expect(
      rerank.rerank(
        { teamId: 't', apiKeyId: 'k2', keyPrefix: 'sk-' },
        {
          query: 'q',
          parsed: big,
          size: 'small',
          threshold: 0,
          topK: 3,
          caching: false,
          columns: {},
          endpoint: '/api/v1/rerank',
        },
        'r',
      ),
    ).rejects.toMatchObject({ status: 402 });
    expect(calls).toEqual([]);
  });
});
