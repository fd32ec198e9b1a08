import { ApiError } from '@app/common';
import type {
  CanonicalEmbeddingRequest,
  CanonicalEmbeddingResponse,
  ModelEntry,
  ProviderRegistry,
  TokenizerService,
} from '@app/providers';
import {
  BATCH_CONCURRENCY,
  EmbeddingsService,
  mapLimit,
  MAX_INPUTS_PER_CALL,
  MAX_TOKENS_PER_CALL,
  planBatches,
} from './embeddings.service';

describe('planBatches', () => {
  it('no inputs → no batches', () => {
    expect(planBatches([])).toEqual([]);
  });

  it('keeps everything in one batch while both limits hold', () => {
    expect(planBatches([3, 4, 5], 3, 12)).toEqual([[0, 3]]);
  });

  it('splits at the input limit', () => {
    expect(planBatches([1, 1, 1, 1, 1], 2, 1000)).toEqual([
      [0, 2],
      [2, 4],
      [4, 5],
    ]);
  });

  it('splits at the token budget; a batch may reach it exactly', () => {
    expect(planBatches([100, 100, 100], 10, 250)).toEqual([
      [0, 2],
      [2, 3],
    ]);
    expect(planBatches([125, 125, 1], 10, 250)).toEqual([
      [0, 2],
      [2, 3],
    ]);
  });

  it('an input larger than the budget travels alone (never an empty batch)', () => {
    expect(planBatches([300, 10, 400, 5], 10, 250)).toEqual([
      [0, 1],
      [1, 2],
      [2, 3],
      [3, 4],
    ]);
  });

  it('defaults: 2048 inputs and 250,000 tokens per call', () => {
    expect(MAX_INPUTS_PER_CALL).toBe(2048);
    expect(MAX_TOKENS_PER_CALL).toBe(250_000);
    expect(planBatches(new Array(5000).fill(1))).toEqual([
      [0, 2048],
      [2048, 4096],
      [4096, 5000],
    ]);
    expect(planBatches([100_000, 100_000, 100_000, 49_999, 1])).toEqual([
      [0, 2],
      [2, 5],
    ]);
  });

  it('batches cover every input exactly once, in order', () => {
    const counts = Array.from({ length: 997 }, (_, i) => (i * 7919) % 613);
    const batches = planBatches(counts, 50, 5000);
    expect(batches[0][0]).toBe(0);
    expect(batches[batches.length - 1][1]).toBe(997);
    for (let b = 1; b < batches.length; b++) expect(batches[b][0]).toBe(batches[b - 1][1]);
    for (const [s, e] of batches) {
      expect(e - s).toBeGreaterThan(0);
      expect(e - s).toBeLessThanOrEqual(50);
      const sum = counts.slice(s, e).reduce((a, c) => a + c, 0);
      if (e - s > 1) expect(sum).toBeLessThanOrEqual(5000);
    }
  });
});

describe('mapLimit', () => {
  const tick = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

  it('keeps input order whatever the completion order', async () => {
    const out = await mapLimit([30, 5, 20, 1, 10], 3, async (ms, i) => {
      await tick(ms);
      return `${i}:${ms}`;
    });
    expect(out).toEqual(['0:30', '1:5', '2:20', '3:1', '4:10']);
  });

  it('never has more than `limit` calls in flight, and uses all of them', async () => {
    let inFlight = 0;
    let peak = 0;
    const started: number[] = [];
    await mapLimit(
      Array.from({ length: 12 }, (_, i) => i),
      4,
      async (i) => {
        started.push(i);
        inFlight++;
        peak = Math.max(peak, inFlight);
        await tick(2);
        inFlight--;
      },
    );
    expect(peak).toBe(4);
    expect(started).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
  });

  it('limit above the item count: one worker per item; empty input → []', async () => {
    let peak = 0;
    let inFlight = 0;
    const out = await mapLimit([1, 2], 10, async (x) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await tick(1);
      inFlight--;
      return x * 2;
    });
    expect(out).toEqual([2, 4]);
    expect(peak).toBe(2);
    expect(await mapLimit([], 4, async () => 1)).toEqual([]);
  });

  it('rejects with the first failure', async () => {
    await expect(
      mapLimit([1, 2, 3], 2, async (x) => {
        if (x === 2) throw new Error('boom 2');
        return x;
      }),
    ).rejects.toThrow('boom 2');
  });
});

describe('EmbeddingsService.embed (fake provider)', () => {
  const model = {
    key: 'text-embedding-3-small',
    upstream_model: 'up-small',
    provider: 'openai',
    kind: 'embedding',
    context_window: 8191,
    dimensions: 1536,
  } as unknown as ModelEntry;

  function setup(
    answer: (req: CanonicalEmbeddingRequest) => CanonicalEmbeddingResponse | Promise<CanonicalEmbeddingResponse>,
  ) {
    const calls: CanonicalEmbeddingRequest[] = [];
    const tokenizers = {
      embeddings: { count: (t: string) => t.length, truncate: (t: string, n: number) => t.slice(0, n) },
    } as unknown as TokenizerService;
    const registry = {
      embeddings: () => ({
        embed: async (req: CanonicalEmbeddingRequest) => {
          calls.push(req);
          return answer(req);
        },
      }),
    } as unknown as ProviderRegistry;
    return { service: new EmbeddingsService(registry, tokenizers), calls };
  }

  const vec = (text: string, dims: number) => Float32Array.from({ length: dims }, (_, i) => text.length + i);

  it('no texts → no call', async () => {
    const { service, calls } = setup(() => ({ vectors: [], prompt_tokens: 0 }));
    expect(await service.embed(model, [], 4)).toEqual({ vectors: [], tokens: 0 });
    expect(calls).toHaveLength(0);
  });

  it('splits by the token budget, calls with the upstream model and dimensions, concatenates in order, sums usage', async () => {
    const { service, calls } = setup((req) => ({
      vectors: req.input.map((t) => vec(t, 3)),
      prompt_tokens: 1000 + req.input.length,
    }));
    // counts given: 3 inputs of 150k tokens → batches [0,1] [1,2] [2,3] (each pair would exceed 250k)
    const texts = ['a', 'bb', 'ccc'];
    const out = await service.embed(model, texts, 3, undefined, [150_000, 150_000, 150_000]);
    expect(calls.map((c) => c.input)).toEqual([['a'], ['bb'], ['ccc']]);
    expect(calls.every((c) => c.model === 'up-small' && c.dimensions === 3)).toBe(true);
    expect(out.vectors.map((v) => Array.from(v))).toEqual([
      [1, 2, 3],
      [2, 3, 4],
      [3, 4, 5],
    ]);
    expect(out.tokens).toBe(3003);
  });

  it(`runs at most ${BATCH_CONCURRENCY} batches at once`, async () => {
    let inFlight = 0;
    let peak = 0;
    const { service, calls } = setup(async (req) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await new Promise((r) => setTimeout(r, 3));
      inFlight--;
      return { vectors: req.input.map((t) => vec(t, 2)), prompt_tokens: 1 };
    });
    const texts = Array.from({ length: 10 }, (_, i) => `t${i}`);
    const out = await service.embed(model, texts, 2, undefined, new Array(10).fill(200_000));
    expect(calls).toHaveLength(10);
    expect(peak).toBe(BATCH_CONCURRENCY);
    expect(out.vectors).toHaveLength(10);
    expect(out.tokens).toBe(10);
  });

  it('502 when the provider returns the wrong number of vectors or the wrong dimension', async () => {
    const short = setup((req) => ({ vectors: req.input.slice(1).map((t) => vec(t, 2)), prompt_tokens: 1 }));
    await expect(short.service.embed(model, ['x', 'y'], 2)).rejects.toMatchObject({
      status: 502,
      message: 'text-embedding-3-small: the provider returned 1 embeddings for 2 inputs.',
    });
    const wrongDims = setup((req) => ({ vectors: req.input.map((t) => vec(t, 5)), prompt_tokens: 1 }));
    const err = await wrongDims.service.embed(model, ['x'], 2).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({
      status: 502,
      message: 'text-embedding-3-small: the provider returned 5-dimensional embeddings, expected 2.',
    });
  });
});
