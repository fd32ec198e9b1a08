import { Injectable, Logger } from '@nestjs/common';
import { ApiError, MetricsService } from '@app/common';
import type { Caller } from '@app/auth';
import { BillingService, MeteredCharge, PricingService } from '@app/billing';
import {
  CanonicalChatChunk,
  CanonicalChatRequest,
  CanonicalChatResponse,
  CanonicalUsage,
  ChatMessage,
  ChatProvider,
  isProviderAbortError,
  ModelCatalogService,
  ModelEntry,
  ProviderError,
  providerErrorToApiError,
  ProviderRegistry,
  TokenizerService,
  ToolCall,
  upstreamErrorKind,
} from '@app/providers';
import { ChatCost, computeChatCost, worstCaseMicro } from './chat-cost';
import { ImageInliner, MAX_IMAGES } from './image-inliner';
import { imageParts, messageText } from './messages';

/** Tokens reserved per image before the provider reports the real count (≈ a 1092×1092 image on Claude). */
export const IMAGE_TOKEN_ESTIMATE = 1600;
/** Other providers' tokenizers differ from o200k: the prompt estimate is padded for the reservation only. */

/** Generation parameters: the canonical request without model, messages and stream. */
export type ChatParams = Omit<CanonicalChatRequest, 'model' | 'messages' | 'stream'>;

export interface ChatCallInput {
  caller: Caller;
  requestId: string;
  endpoint: string;
  modelKey: string;
  messages: ChatMessage[];
  params: ChatParams;
  /** param name used in errors about images (e.g. "file_urls" or "messages") */
  imageParam: string;
}

export interface PreparedChat {
  input: ChatCallInput;
  model: ModelEntry;
  provider: ChatProvider;
  request: CanonicalChatRequest;
  promptTokens: number;
  images: number;
  /** the worst case, held when the call starts */
  holdMicro: number;
}

export interface ChatOutcome {
  response: CanonicalChatResponse;
  usage: CanonicalUsage;
  cost: ChatCost;
  chargedMicro: number;
  /** usage was counted by the gateway (provider reported none, or the client disconnected) */
  usageEstimated: boolean;
}

export interface StreamOutcome extends ChatOutcome {
  aborted: boolean;
  text: string;
  reasoning: string;
}

/**
 * The chat pipeline shared by /api/v1/chat and /v1/chat/completions:
 *   prepare  — model + capability checks, limits, token count, image fetch, reservation (402)
 *   complete / stream — provider call, usage, exact cost, settle (or release on failure)
 */
@Injectable()
export class ChatService {
  private readonly logger = new Logger('Chat');

  constructor(
    private readonly catalog: ModelCatalogService,
    private readonly registry: ProviderRegistry,
    private readonly billing: BillingService,
    private readonly pricing: PricingService,
    private readonly images: ImageInliner,
    private readonly tokenizers: TokenizerService,
    private readonly metrics: MetricsService = new MetricsService(),
  ) {}

  /**
   * The checks that need no I/O (model, provider credentials, capabilities, image count). Callers
   * that do billed work before the call (context retrieval) run it first so that a request the
   * pipeline would refuse charges nothing.
   */
  check(input: Pick<ChatCallInput, 'modelKey' | 'messages' | 'params' | 'imageParam'>): { model: ModelEntry; provider: ChatProvider } {
    const model = this.catalog.require(input.modelKey, 'chat');
    const provider = this.registry.chat(model); // 503 when the provider has no credentials
    const p = input.params;
    const imgs = imageParts(input.messages);
    if (imgs.length && !model.supports_images) throw ApiError.badRequest(`The model '${model.key}' does not accept images.`, input.imageParam, 'images_not_supported');
    if (imgs.length > MAX_IMAGES) throw ApiError.tooLarge(`At most ${MAX_IMAGES} images per request (got ${imgs.length}).`, input.imageParam);
    if (p.tools?.length && !model.supports_tools) throw ApiError.badRequest(`The model '${model.key}' does not support tools.`, 'tools', 'tools_not_supported');
    if ((p.n ?? 1) > 1 && !model.supports_n) throw ApiError.badRequest(`The model '${model.key}' does not support n > 1.`, 'n', 'n_not_supported');
    if (p.response_format && p.response_format.type !== 'text' && !model.supports_json) {
      throw ApiError.badRequest(`The model '${model.key}' does not support structured output.`, 'response_format', 'json_not_supported');
    }
    if (p.max_tokens !== undefined && p.max_tokens > model.max_output_tokens) {
      throw ApiError.badRequest(`max_tokens is too large: ${p.max_tokens}. The model '${model.key}' supports at most ${model.max_output_tokens} completion tokens.`, 'max_tokens', 'invalid_value');
    }
    return { model, provider };
  }

  async prepare(input: ChatCallInput): Promise<PreparedChat> {
    const { model, provider } = this.check(input);
    const p = input.params;
    const imgs = imageParts(input.messages);

    const promptTokens = this.countPrompt(input.messages, p);
    if (promptTokens > model.context_window) {
      throw ApiError.badRequest(`This model's maximum context length is ${model.context_window} tokens; the messages use about ${promptTokens}.`, 'messages', 'context_length_exceeded');
    }
    const maxOutput = p.max_tokens ?? Math.max(1, Math.min(model.max_output_tokens, model.context_window - promptTokens));
    const n = p.n ?? 1;

    const messages = imgs.length ? await this.images.prepare(input.messages, this.registry.needsInlineImages(model), input.imageParam) : input.messages;
    const request: CanonicalChatRequest = { ...stripUndefined(p), model: model.upstream_model, messages, max_tokens: maxOutput };

    const promptText = input.messages.map((m) => messageText(m)).join('\n') + (p.tools ? JSON.stringify(p.tools) : '');
    const holdTokens = this.pricing.holdTokens(promptTokens, { exact: this.registry.countsTokensExactly(model), text: promptText }) + imgs.length * IMAGE_TOKEN_ESTIMATE;
    const holdMicro = worstCaseMicro(holdTokens, maxOutput * n, model.pricing, imgs.length);
    return { input, model, provider, request, promptTokens, images: imgs.length, holdMicro };
  }

  /** Prompt tokens of messages and tools as the pipeline counts them (o200k; images counted apart). */
  countPrompt(messages: ChatMessage[], params: ChatParams): number {
    const counted = this.tokenizers.chat.countChat(messages.map((m) => ({ role: m.role, content: messageText(m) })));
    return counted + (params.tools ? this.tokenizers.chat.count(JSON.stringify(params.tools)) : 0);
  }

  /** Non-streaming call. `validate` may reject the answer (e.g. invalid JSON): nothing is charged then. */
  async complete(prep: PreparedChat, signal: AbortSignal, validate?: (r: CanonicalChatResponse) => void): Promise<ChatOutcome> {
    let usage: CanonicalUsage | null = null;
    let cost: ChatCost | null = null;
    let usageEstimated = false;
    const { result: response, charged } = await this.billing.meter({
      teamId: prep.input.caller.teamId,
      caller: prep.input.caller,
      requestId: prep.input.requestId,
      holdMicro: prep.holdMicro,
      estimatedTokens: prep.promptTokens,
      run: async () => {
        try {
          const r = await prep.provider.complete(prep.request, signal);
          validate?.(r);
          return r;
        } catch (err) {
          throw this.toApiError(err, prep);
        }
      },
      charge: (r) => {
        usageEstimated = r.usage === null;
        usage = r.usage ?? this.countUsage(prep, r.choices.map((c) => [c.message.content ?? '', c.message.reasoning_content ?? '', ...(c.message.tool_calls ?? []).map(toolText)].join('')).join(''));
        cost = computeChatCost(usage, prep.model.pricing, prep.images);
        return this.chargeFor(prep, usage, cost, usageEstimated);
      },
    });
    return { response: { ...response, model: prep.model.key }, usage: usage!, cost: cost!, chargedMicro: charged?.chargedMicro ?? 0, usageEstimated };
  }

  /**
   * Streaming call: every chunk (model renamed to the catalog key, usage stripped) goes to `sink`.
   * Usage comes from the provider's final report; on client abort the delivered tokens are counted
   * and charged. An upstream failure mid-stream releases the reservation (nothing charged) and
   * rethrows as an ApiError for the caller to put in-band.
   */
  async stream(prep: PreparedChat, signal: AbortSignal, sink: (chunk: CanonicalChatChunk) => Promise<void>): Promise<StreamOutcome> {
    let text = '';
    let reasoning = '';
    let toolArgs = '';
    let usage: CanonicalUsage | null = null;
    let meta: { id: string; created: number } | null = null;
    let aborted = false;
    let finalUsage: CanonicalUsage | null = null;
    let usageEstimated = false;
    let cost: ChatCost | null = null;
    const { charged } = await this.billing.meter({
      teamId: prep.input.caller.teamId,
      caller: prep.input.caller,
      requestId: prep.input.requestId,
      holdMicro: prep.holdMicro,
      estimatedTokens: prep.promptTokens,
      run: async () => {
        let iterable: AsyncIterable<CanonicalChatChunk>;
        try {
          iterable = await prep.provider.stream(prep.request, signal);
        } catch (err) {
          throw this.toApiError(err, prep);
        }
        try {
          for await (const chunk of iterable) {
            meta ??= { id: chunk.id, created: chunk.created };
            if (chunk.usage) usage = chunk.usage;
            if (chunk.choices.length === 0) continue;
            for (const c of chunk.choices) {
              text += c.delta.content ?? '';
              reasoning += c.delta.reasoning_content ?? '';
              for (const t of c.delta.tool_calls ?? []) toolArgs += (t.function?.name ?? '') + (t.function?.arguments ?? '');
            }
            const { usage: _drop, ...rest } = chunk;
            await sink({ ...rest, model: prep.model.key });
            if (signal.aborted) break;
          }
          if (signal.aborted) aborted = true;
        } catch (err) {
          if (!(signal.aborted || isProviderAbortError(err))) throw this.toApiError(err, prep);
          aborted = true;
        }
      },
      // aborted: whatever the provider reported is incomplete — charge what was delivered
      charge: () => {
        usageEstimated = aborted || usage === null;
        finalUsage = !usageEstimated && usage ? usage : this.countUsage(prep, text + reasoning + toolArgs);
        cost = computeChatCost(finalUsage, prep.model.pricing, prep.images);
        return this.chargeFor(prep, finalUsage, cost, usageEstimated);
      },
      // the upstream failed after text was streamed: the client keeps it and the provider bills it
      chargeOnFailure: () => {
        const delivered = text + reasoning + toolArgs;
        if (delivered === '') return null;
        const partial = this.countUsage(prep, delivered);
        this.logger.warn({ requestId: prep.input.requestId, completionTokens: partial.completion_tokens }, 'upstream failed mid-stream: charged the delivered tokens');
        return this.chargeFor(prep, partial, computeChatCost(partial, prep.model.pricing, prep.images), true);
      },
    });
    if (aborted) this.logger.log({ requestId: prep.input.requestId, completionTokens: finalUsage!.completion_tokens }, 'client disconnected: charged delivered tokens');
    const m = meta as { id: string; created: number } | null;
    const response: CanonicalChatResponse = {
      id: m?.id ?? `chatcmpl-${prep.input.requestId}`,
      object: 'chat.completion',
      created: m?.created ?? Math.floor(Date.now() / 1000),
      model: prep.model.key,
      choices: [],
      usage: finalUsage!,
    };
    return { response, usage: finalUsage!, cost: cost!, chargedMicro: charged?.chargedMicro ?? 0, usageEstimated, aborted, text, reasoning };
  }

  private countUsage(prep: PreparedChat, delivered: string): CanonicalUsage {
    const completion = this.tokenizers.chat.count(delivered);
    const prompt = prep.promptTokens + prep.images * IMAGE_TOKEN_ESTIMATE;
    return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion, cache_read_tokens: 0, cache_write_tokens: 0 };
  }

  private chargeFor(prep: PreparedChat, usage: CanonicalUsage, cost: ChatCost, estimated: boolean): MeteredCharge {
    return {
      costMicro: cost.totalMicro,
      details: {
        endpoint: prep.input.endpoint,
        model: prep.model.key,
        apiKeyId: prep.input.caller.apiKeyId,
        promptTokens: usage.prompt_tokens,
        completionTokens: usage.completion_tokens,
        totalTokens: usage.prompt_tokens + usage.completion_tokens,
        breakdown: { ...cost, cache_read_tokens: usage.cache_read_tokens, cache_write_tokens: usage.cache_write_tokens, images: prep.images, usage_estimated: estimated },
      },
    };
  }

  private toApiError(err: unknown, prep: PreparedChat): ApiError {
    const kind = upstreamErrorKind(err);
    if (kind) this.metrics.upstreamError(prep.model.provider, prep.model.key, kind);
    if (err instanceof ProviderError && err.kind === 'auth') {
      this.logger.error({ provider: prep.model.provider, status: err.upstreamStatus }, 'provider rejected the gateway credentials');
    } else if (!(err instanceof ApiError) && !(err instanceof ProviderError) && !isProviderAbortError(err)) {
      this.logger.error({ err, requestId: prep.input.requestId }, 'unexpected chat failure');
    }
    return providerErrorToApiError(err, prep.model);
  }
}

function toolText(t: ToolCall): string {
  return t.function.name + t.function.arguments;
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
