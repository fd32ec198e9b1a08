import { AppConfig } from '@app/config';
import { ParserPool } from '@app/common';
import { TokenCounter } from '../tokenizer/token-counter';
import { LexicalEmbedder } from './lexical-embedder';
import { LOCAL_EMBED_OFFLOAD_CHARS, LocalEmbeddingProvider } from './local.providers';

describe('LocalEmbeddingProvider', () => {
  const pool = new ParserPool(AppConfig.fromEnv({}));
  afterAll(() => pool.onApplicationShutdown());
  const tokens = new TokenCounter('cl100k_base');
  const inline = new LocalEmbeddingProvider(new LexicalEmbedder(), tokens, 256);
  const pooled = new LocalEmbeddingProvider(new LexicalEmbedder(), tokens, 256, pool);
  const sentence = (i: number) =>
    `Chunk ${i}: the harbour office renews permits on weekdays; пропуск продлевают по будням, документ ${i}.`;

  it('a large batch is embedded in a worker thread: the same vectors and tokens as inline', async () => {
    const input = Array.from({ length: 1200 }, (_, i) => sentence(i));
    expect(input.join('').length).toBeGreaterThan(LOCAL_EMBED_OFFLOAD_CHARS);
    const a = await inline.embed({ model: 'local-embedding-small', input, dimensions: 512 });
    expect(pool.size).toBe(0);
    const b = await pooled.embed({ model: 'local-embedding-small', input, dimensions: 512 });
    expect(pool.size).toBe(1); // the work went to the pool
    expect(b.prompt_tokens).toBe(a.prompt_tokens);
    expect(b.vectors).toHaveLength(1200);
    b.vectors.forEach((v, i) => {
      expect(v).toHaveLength(512);
      expect(Array.from(v)).toEqual(Array.from(a.vectors[i]));
    });
  });

  it('a small batch stays on the calling thread', async () => {
    const small = new ParserPool(AppConfig.fromEnv({}));
    const provider = new LocalEmbeddingProvider(new LexicalEmbedder(), tokens, 256, small);
    const out = await provider.embed({ model: 'local-embedding-small', input: [sentence(1)] });
    expect(out.vectors[0]).toHaveLength(256);
    expect(small.size).toBe(0);
    await small.onApplicationShutdown();
  });
});
