import { Injectable, Optional } from '@nestjs/common';
import { ApiError, MetricsService } from '@app/common';
import {
  CanonicalEmbeddingResponse,
  EmbeddingPurpose,
  ModelEntry,
  providerErrorToApiError,
  ProviderRegistry,
  TokenizerService,
  upstreamErrorKind,
  UpstreamRouter,
} from '@app/providers';
import type { RequestProtection } from '@app/data-protection';

/** Upstream batch limits: inputs per call and a token budget per call (OpenAI allows 2048 / 300k). */
export const MAX_INPUTS_PER_CALL = 2048;
export const MAX_TOKENS_PER_CALL = 250_000;
/** Batches in flight at once per request. */
export const BATCH_CONCURRENCY = 4;

export interface EmbedResult {
  vectors: Float32Array[];
  /** as reported by the provider (summed over batches) */
  tokens: number;
}

/** Splits inputs into batches of ≤ maxInputs items and ≤ maxTokens (by the counter) each, in order. */
export function planBatches(
  tokenCounts: number[],
  maxInputs = MAX_INPUTS_PER_CALL,
  maxTokens = MAX_TOKENS_PER_CALL,
): Array<[number, number]> {
  const batches: Array<[number, number]> = [];
  let start = 0;
  let tokens = 0;
  for (let i = 0; i < tokenCounts.length; i++) {
    const t = tokenCounts[i];
    if (i > start && (i - start >= maxInputs || tokens + t > maxTokens)) {
      batches.push([start, i]);
      start = i;
      tokens = 0;
    }
    tokens += t;
  }
  if (start < tokenCounts.length) batches.push([start, tokenCounts.length]);
  return batches;
}

/** Runs `fn` over `items` with at most `limit` in flight; results keep input order. */
export async function mapLimit<T, R>(
  items: T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i], i);
    }
  });
  await Promise.all(workers);
  return out;
}

/**
 * Embeddings for rerank and the embeddings endpoints: batched provider calls (≤ 2048 inputs and a
 * token budget per call, a few batches in parallel), provider-reported token usage.
 */
@Injectable()
export class EmbeddingsService {
  constructor(
    private readonly registry: ProviderRegistry,
    private readonly tokenizers: TokenizerService,
    /** retries each batch on a retryable failure (<PROVIDER>_MAX_RETRIES) and counts each failed attempt; absent in unit tests: one attempt */
    @Optional() private readonly router?: UpstreamRouter,
    private readonly metrics: MetricsService = new MetricsService(),
  ) {}

  /** cl100k token counts, used for batching and reservations (the provider's report is what is billed). */
  countTokens(texts: string[]): number[] {
    return texts.map((t) => this.tokenizers.embeddings.count(t));
  }

  /** Text of cl100k_base token ids (the text-embedding-3 encoding); RangeError on an unknown id. */
  decodeTokens(tokens: readonly number[]): string {
    return this.tokenizers.embeddings.decode(tokens);
  }

  truncate(text: string, maxTokens: number): string {
    return this.tokenizers.embeddings.truncate(text, maxTokens);
  }

  /**
   * `purpose`: `query` for a search's own text (a knowledge-base search, rerank's query), `document`
   * (the default) for texts that are searched; providers with a query/document model pair pick by it.
   */
  async embed(
    model: ModelEntry,
    texts: string[],
    dimensions: number | undefined,
    signal?: AbortSignal,
    tokenCounts?: number[],
    purpose: EmbeddingPurpose = 'document',
    /** the caller's data policy: residency (403 before any call), personal data blocked or masked */
    protection?: RequestProtection,
  ): Promise<EmbedResult> {
    if (texts.length === 0) return { vectors: [], tokens: 0 };
    if (protection) {
      protection.assertAllowed(model);
      protection.screenFor(model, texts, 'input');
      if (protection.masksFor(model)) texts = texts.map((t) => protection.mask(t));
    }
    const provider = this.registry.embeddings(model);
    const counts = tokenCounts ?? this.countTokens(texts);
    const batches = planBatches(counts);
    let results: CanonicalEmbeddingResponse[];
    try {
      results = await mapLimit(batches, BATCH_CONCURRENCY, ([s, e]) => {
        const call = () =>
          provider.embed({ model: model.upstream_model, input: texts.slice(s, e), dimensions, purpose }, signal);
        return this.router ? this.router.retry(model, call, { signal, policy: protection?.policy }) : call();
      });
    } catch (err) {
      // the router counted every failed attempt; without one, the single attempt is counted here
      const kind = this.router ? null : upstreamErrorKind(err);
      if (kind) this.metrics.upstreamError(model.provider, model.key, kind);
      throw providerErrorToApiError(err, model);
    }
    const vectors: Float32Array[] = [];
    let tokens = 0;
    results.forEach((r, b) => {
      const [s, e] = batches[b];
      if (r.vectors.length !== e - s)
        throw ApiError.badGateway(
          `${model.key}: the provider returned ${r.vectors.length} embeddings for ${e - s} inputs.`,
        );
      for (const v of r.vectors) {
        if (dimensions !== undefined && v.length !== dimensions)
          throw ApiError.badGateway(
            `${model.key}: the provider returned ${v.length}-dimensional embeddings, expected ${dimensions}.`,
          );
        vectors.push(v);
      }
      tokens += r.prompt_tokens;
    });
    return { vectors, tokens };
  }
}
