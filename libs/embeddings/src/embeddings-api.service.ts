import { Injectable, Optional } from '@nestjs/common';
import { ApiError, totalCost } from '@app/common';
import { assertModelAllowed, type Caller } from '@app/auth';
import { BillingService, embeddingsChargeMicro, embeddingsHoldMicro } from '@app/billing';
import { ModelCatalogService } from '@app/providers';
import { EmbeddingsRequestDto, EmbeddingsResponseDto } from './dto/embeddings.dto';
import { EmbeddingsService } from './embeddings.service';
import { DataProtection } from '@app/data-protection';

export const MAX_EMBEDDING_INPUTS = 2048;

/** POST /v1/embeddings and /api/v1/embeddings: validation, reservation, provider call, exact charge. */
@Injectable()
export class EmbeddingsApiService {
  constructor(
    private readonly catalog: ModelCatalogService,
    private readonly embeddings: EmbeddingsService,
    private readonly billing: BillingService,
    @Optional() private readonly protection: DataProtection = new DataProtection(),
  ) {}

  async create(
    caller: Caller,
    dto: EmbeddingsRequestDto,
    requestId: string,
    endpoint: string,
    signal?: AbortSignal,
  ): Promise<EmbeddingsResponseDto> {
    const model = this.catalog.require(dto.model, 'embedding');
    assertModelAllowed(caller, model.key);
    const protection = this.protection.forRequest(caller, requestId);
    protection.assertAllowed(model);
    const inputs = normalizeInput(dto.input, (tokens) => this.embeddings.decodeTokens(tokens));
    protection.screenFor(model, inputs, 'input');
    const native = model.dimensions ?? 1536;
    if (dto.dimensions !== undefined && dto.dimensions > native) {
      throw ApiError.badRequest(`dimensions must be at most ${native} for ${model.key}.`, 'dimensions');
    }
    const counts = this.embeddings.countTokens(inputs);
    counts.forEach((c, i) => {
      if (c > model.context_window)
        throw ApiError.badRequest(
          `input[${i}] is ${c} tokens; ${model.key} accepts at most ${model.context_window}.`,
          `input[${i}]`,
          'context_length_exceeded',
        );
    });
    const estimate = counts.reduce((a, b) => a + b, 0);
    const { result, charged } = await this.billing.meter({
      teamId: caller.teamId,
      caller,
      requestId,
      holdMicro: embeddingsHoldMicro(model.pricing, estimate),
      estimatedTokens: estimate,
      run: () => this.embeddings.embed(model, inputs, dto.dimensions, signal, counts, 'document', protection),
      charge: (r) => ({
        costMicro: embeddingsChargeMicro(model.pricing, r.tokens),
        details: {
          endpoint,
          model: model.key,
          apiKeyId: caller.apiKeyId,
          promptTokens: r.tokens,
          completionTokens: 0,
          fx: model.fx ?? null,
          breakdown: { inputs: inputs.length, dimensions: dto.dimensions ?? native },
        },
      }),
    });
    const chargedMicro = charged?.chargedMicro ?? 0;
    const base64 = dto.encoding_format === 'base64';
    return {
      object: 'list',
      data: result.vectors.map((v, index) => ({
        object: 'embedding',
        index,
        embedding: base64 ? Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64') : Array.from(v),
      })),
      model: model.key,
      usage: { prompt_tokens: result.tokens, total_tokens: result.tokens },
      cost: totalCost(chargedMicro),
    };
  }
}

const isTokenId = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;

/**
 * OpenAI's four input forms: a string, an array of strings, an array of token ids (one input) or
 * an array of token-id arrays. Token ids are cl100k_base (the encoding of OpenAI's embedding
 * models) and are decoded to their text, so every provider (and the local embedders) takes them.
 */
function normalizeInput(input: unknown, decode: (tokens: number[]) => string): string[] {
  const invalid = 'input must be a non-empty string, array of strings, array of token ids or array of token-id arrays.';
  if (Array.isArray(input) && input.length > 0 && input.every(isTokenId)) input = [input];
  const list = typeof input === 'string' ? [input] : input;
  if (!Array.isArray(list) || list.length === 0) throw ApiError.badRequest(invalid, 'input');
  if (list.length > MAX_EMBEDDING_INPUTS)
    throw ApiError.badRequest(`input may hold at most ${MAX_EMBEDDING_INPUTS} items.`, 'input');
  const tokenForm = Array.isArray(list[0]);
  return list.map((s, i) => {
    if (tokenForm) {
      if (!Array.isArray(s) || s.length === 0)
        throw ApiError.badRequest(
          `input[${i}] must be a non-empty array of token ids, like the other items.`,
          `input[${i}]`,
        );
      const bad = s.findIndex((t) => !isTokenId(t));
      if (bad >= 0)
        throw ApiError.badRequest(`input[${i}][${bad}] must be a token id (an integer ≥ 0).`, `input[${i}][${bad}]`);
      try {
        return decode(s as number[]);
      } catch {
        throw ApiError.badRequest(`input[${i}] holds a token id that is not in cl100k_base.`, `input[${i}]`);
      }
    }
    if (typeof s !== 'string')
      throw ApiError.badRequest(`input[${i}] must be a string, like the other items.`, `input[${i}]`);
    if (s === '') throw ApiError.badRequest(`input[${i}] must not be empty.`, `input[${i}]`);
    return s;
  });
}
