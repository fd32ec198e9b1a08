import { Injectable, Logger, Optional } from '@nestjs/common';
import { ApiError, Clock, RequestContexts } from '@app/common';
import { assertModelAllowed, modelAllowed, type Caller } from '@app/auth';
import {
  BillingService,
  ChatCost,
  chatOutputWithin,
  chatTokensCharge,
  chatTokensHoldMicro,
  MeteredCharge,
  PricingService,
  RequestHold,
} from '@app/billing';
import {
  CanonicalChatChunk,
  CanonicalChatRequest,
  CanonicalChatResponse,
  CanonicalUsage,
  ChatControl,
  PromptUsage,
  ChatMessage,
  ChatProvider,
  isProviderAbortError,
  ModelCatalogService,
  ModelEntry,
  ProviderError,
  providerErrorToApiError,
  ProviderRegistry,
  RouteProgress,
  TokenizerService,
  ToolCall,
  UpstreamRouter,
  modelRefusedByPolicy,
  policyAllowsModel,
} from '@app/providers';
import { DataProtection, RequestProtection } from '@app/data-protection';
import { assertControls } from './chat-controls';
import { ChunkRestorer, maskMessages, messageTexts, restoreResponse, toolTexts } from './chat-protection';
import { pullFrom } from './event-stream';
import { ImageInliner, MAX_IMAGES } from './image-inliner';
import { imageParts, messageText } from './messages';

/** Tokens reserved per image before the provider reports the real count (≈ a 1092×1092 image on Claude). */
export const IMAGE_TOKEN_ESTIMATE = 1600;
/**
 * The least output a call capped to the balance is sent with (per choice): below it the request is
 * refused (402) as one the balance cannot cover.
 */
export const MIN_CAPPED_OUTPUT_TOKENS = 16;
/** Response header of a call whose output was capped to what the balance affords: the max_tokens sent upstream. */
export const MAX_TOKENS_CAPPED_HEADER = 'x-gateway-max-tokens-capped';

/** Generation parameters: the canonical request without model, messages and stream. */
export type ChatParams = Omit<CanonicalChatRequest, 'model' | 'messages' | 'stream'>;

export interface ChatCallInput {
  caller: Caller;
  requestId: string;
  endpoint: string;
  modelKey: string;
  /** request extension: model keys tried after `modelKey` (instead of the catalog's `fallbacks`) */
  fallbacks?: string[];
  messages: ChatMessage[];
  params: ChatParams;
  /** param name used in errors about images (e.g. "file_urls" or "messages") */
  imageParam: string;
  /**
   * Models whose upstream gets the caller's own body (see UpstreamCall), not the canonical request:
   * their images are not fetched and inlined.
   */
  sendsOwnBody?: (model: ModelEntry) => boolean;
  /** Models for which a max_tokens above their output cap is lowered to the cap instead of refused. */
  capsMaxTokens?: (model: ModelEntry) => boolean;
  /** the request's hold taken before its retrieval (the answer's hold is taken out of it) */
  within?: RequestHold | null;
  /** the request's name of a control (the Responses API says reasoning.effort, text.verbosity …) */
  controlParam?: (c: ChatControl) => string;
  /** countPrompt(messages, params) when the caller counted these very messages already (not counted twice) */
  promptTokens?: number;
  /**
   * The output may be capped to what the balance affords (default: when the caller gave no
   * max_tokens); /v1/messages, whose max_tokens is required, reads it as a ceiling.
   */
  capOutput?: boolean;
  /** the least output tokens a capped call is sent with (default MIN_CAPPED_OUTPUT_TOKENS) */
  minOutputTokens?: number;
}

/** One model the call may be served by, with its own upstream request. */
export interface ChatCandidate {
  model: ModelEntry;
  request: CanonicalChatRequest;
  /** this model's worst case */
  holdMicro: number;
  /** the prompt side of the hold, in tokens (padded prompt + images), for capping the output */
  promptHoldTokens?: number;
  /** the hold with the least output a capped call is sent with */
  minHoldMicro?: number;
  /** set when the output was capped to what the balance affords: the max_tokens sent */
  cappedOutput?: number;
}

export interface PreparedChat {
  input: ChatCallInput;
  /** the requested model */
  model: ModelEntry;
  /** the requested model's upstream request */
  request: CanonicalChatRequest;
  /** the requested model, then the fallbacks that accept this request and are callable */
  candidates: ChatCandidate[];
  promptTokens: number;
  images: number;
  /** the worst case, held when the call starts: the dearest candidate's */
  holdMicro: number;
  /**
   * When the output may be capped to the balance: the least hold the call can run with (the
   * cheapest runnable candidate with the least output); the hold is then flexible (MeterSpec.minMicro).
   */
  minHoldMicro?: number;
  /** how each attempt calls its upstream, when not with the candidate's canonical request */
  upstream?: UpstreamCall;
  /** the caller's data policy on this request (its placeholders when personal data is masked) */
  protection?: RequestProtection;
}

/**
 * An endpoint's own way to call a candidate's upstream (e.g. a wire format passed through
 * natively). Results keep the canonical shape, so usage, accounting and billing stay the same.
 */
export interface UpstreamCall {
  complete(c: ChatCandidate, provider: ChatProvider, signal: AbortSignal): Promise<CanonicalChatResponse>;
  stream(c: ChatCandidate, provider: ChatProvider, signal: AbortSignal): Promise<AsyncIterable<CanonicalChatChunk>>;
}

/** How the call was routed (retries, fallbacks, deployment), for headers, logs and metrics. */
export interface ChatRouting {
  /** upstream attempts, all models together */
  attempts: number;
  retries: number;
  fallbacks: number;
  deployment: string;
}

export interface ChatOutcome {
  response: CanonicalChatResponse;
  usage: CanonicalUsage;
  cost: ChatCost;
  chargedMicro: number;
  /** usage was counted by the gateway (provider reported none, or the client disconnected) */
  usageEstimated: boolean;
  /** the model that served the answer (the requested one, or a fallback); priced at its rates */
  servedModel: ModelEntry;
  routing: ChatRouting;
}

export interface StreamOutcome extends ChatOutcome {
  aborted: boolean;
  text: string;
  reasoning: string;
}

/** What ChatService.events yields: each chunk as it comes (model = the served catalog key), then the settled outcome. */
/** How an endpoint words a chat stream (ChatService.relay). */
export interface RelaySteps<E> {
  chunk(chunk: CanonicalChatChunk): Iterable<E>;
  error(err: unknown): Iterable<E>;
  end(outcome: StreamOutcome): Iterable<E>;
}

export type ChatStreamEvent = { type: 'chunk'; chunk: CanonicalChatChunk } | { type: 'end'; outcome: StreamOutcome };

/**
 * The chat pipeline shared by /api/v1/chat and /v1/chat/completions:
 *   prepare  — model + capability checks, limits, token count, image fetch, candidates, hold size
 *   complete / stream — reservation (402), provider call through the UpstreamRouter (retries,
 *              fallbacks, deployments), usage, exact cost at the served model's prices, settle
 *              (or release on failure)
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
    private readonly router: UpstreamRouter,
    @Optional() private readonly clock: Clock = new Clock(),
    @Optional() private readonly requests?: RequestContexts,
    @Optional() private readonly protection: DataProtection = new DataProtection(),
  ) {}

  /**
   * The checks that need no I/O (model, fallbacks named in the request, provider credentials,
   * the requested model's capabilities, image count). Callers that do billed work before the call
   * (context retrieval) run it first so that a request the pipeline would refuse charges nothing.
   */
  check(
    input: Pick<
      ChatCallInput,
      'modelKey' | 'fallbacks' | 'messages' | 'params' | 'imageParam' | 'capsMaxTokens' | 'controlParam'
    > & {
      caller?: Caller;
    },
  ): {
    model: ModelEntry;
    fallbacks: ModelEntry[];
  } {
    const model = this.catalog.require(input.modelKey, 'chat');
    // a key restricted to some models: the requested one and any fallback named in the request must be
    // among them; the catalog's own fallbacks outside the list are skipped
    if (input.caller) {
      assertModelAllowed(input.caller, model.key);
      for (const f of input.fallbacks ?? []) assertModelAllowed(input.caller, f, 'fallbacks');
      // the data policy's residency: the requested model must be allowed (fallbacks stop before the first that is not)
      if (!policyAllowsModel(input.caller.dataPolicy, model)) throw modelRefusedByPolicy(model.key);
    }
    const caller = input.caller;
    const fallbacks = this.fallbackModels(model, input.fallbacks).filter((f) => !caller || modelAllowed(caller, f.key));
    // 503 when the provider has no credentials — unless a fallback can serve
    if (!this.registry.isAvailable(model) && !fallbacks.some((f) => this.registry.isAvailable(f)))
      this.registry.chat(model);
    const p = input.params;
    const imgs = imageParts(input.messages);
    if (imgs.length && !model.supports_images)
      throw ApiError.badRequest(
        `The model '${model.key}' does not accept images.`,
        input.imageParam,
        'images_not_supported',
      );
    if (imgs.length > MAX_IMAGES)
      throw ApiError.tooLarge(`At most ${MAX_IMAGES} images per request (got ${imgs.length}).`, input.imageParam);
    if (p.tools?.length && !model.supports_tools)
      throw ApiError.badRequest(`The model '${model.key}' does not support tools.`, 'tools', 'tools_not_supported');
    if ((p.n ?? 1) > 1 && !model.supports_n)
      throw ApiError.badRequest(`The model '${model.key}' does not support n > 1.`, 'n', 'n_not_supported');
    assertControls(model, p, input.controlParam);
    if (p.response_format && p.response_format.type !== 'text' && !model.supports_json) {
      throw ApiError.badRequest(
        `The model '${model.key}' does not support structured output.`,
        'response_format',
        'json_not_supported',
      );
    }
    if (p.max_tokens !== undefined && p.max_tokens > model.max_output_tokens && !input.capsMaxTokens?.(model)) {
      throw ApiError.badRequest(
        `max_tokens is too large: ${p.max_tokens}. The model '${model.key}' supports at most ${model.max_output_tokens} completion tokens.`,
        'max_tokens',
        'invalid_value',
      );
    }
    return { model, fallbacks };
  }

  /**
   * Candidates and the hold. A context (project / knowledge base) was sized for the requested model
   * before this; a fallback whose window cannot take the assembled messages is left out like any
   * fallback that cannot take the request.
   */
  async prepare(input: ChatCallInput): Promise<PreparedChat> {
    try {
      return await this.plans(input);
    } catch (err) {
      // refused after its retrieval (e.g. the context made the messages too long): release the rest
      await input.within?.close();
      throw err;
    }
  }

  private async plans(input: ChatCallInput): Promise<PreparedChat> {
    const { model, fallbacks: fallbackModels } = this.check(input);
    const primaryMissing = this.registry.isAvailable(model) ? null : () => this.registry.chat(model);
    const p = input.params;
    const imgs = imageParts(input.messages);
    const promptTokens = input.promptTokens ?? this.countPrompt(input.messages, p);
    const promptText = input.messages.map((m) => messageText(m)).join('\n') + (p.tools ? JSON.stringify(p.tools) : '');

    // the requested model's rules answer the caller; a fallback that cannot take this request is left out
    const primaryPlan = this.plan(model, input, promptTokens, imgs.length, promptText);
    const plans = [primaryPlan];
    for (const f of fallbackModels) {
      try {
        plans.push(this.plan(f, input, promptTokens, imgs.length, promptText));
      } catch (err) {
        if (!(err instanceof ApiError) || err.status !== 400) throw err;
        this.logger.debug(
          { requestId: input.requestId, fallback: f.key, reason: err.message },
          'fallback left out: it cannot take this request',
        );
      }
    }
    // an unavailable requested model stays first (the router records the fallback); unavailable fallbacks are left out
    const usable = plans.filter((pl, i) => i === 0 || this.registry.isAvailable(pl.model));
    const available = usable.filter((pl) => this.registry.isAvailable(pl.model));
    if (available.length === 0) primaryMissing?.();

    const inlined = new Map<boolean, ChatMessage[]>();
    const messagesFor = async (m: ModelEntry): Promise<ChatMessage[]> => {
      if (!imgs.length || !this.registry.isAvailable(m) || input.sendsOwnBody?.(m)) return input.messages;
      const inline = this.registry.needsInlineImages(m);
      if (!inlined.has(inline))
        inlined.set(inline, await this.images.prepare(input.messages, inline, input.imageParam));
      return inlined.get(inline)!;
    };
    const candidates: ChatCandidate[] = [];
    const caps = input.capOutput ?? p.max_tokens === undefined;
    for (const pl of usable) {
      candidates.push({
        model: pl.model,
        request: {
          ...stripUndefined(p),
          model: pl.model.upstream_model,
          messages: await messagesFor(pl.model),
          max_tokens: pl.maxOutput,
        },
        holdMicro: pl.holdMicro,
        ...(caps ? { promptHoldTokens: pl.promptHoldTokens, minHoldMicro: pl.minHoldMicro } : {}),
      });
    }
    const protection = this.protection.forRequest(input.caller, input.requestId);
    const protectedCandidates = this.protect(protection, candidates, input);
    const runnable = protectedCandidates.filter((c) => this.registry.isAvailable(c.model));
    return {
      input,
      model,
      request: protectedCandidates[0].request,
      candidates: protectedCandidates,
      protection,
      promptTokens,
      images: imgs.length,
      // the dearest model that may actually run
      holdMicro: Math.max(...runnable.map((c) => c.holdMicro)),
      ...(caps && runnable.length ? { minHoldMicro: Math.min(...runnable.map((c) => c.minHoldMicro!)) } : {}),
    };
  }

  /**
   * The data policy on the candidates: the chain stops before the first model the residency does
   * not allow; in block mode, personal data in the messages refuses the request (400 pii_detected)
   * when the requested model blocks it, and leaves out the fallbacks that would; in mask mode, each
   * candidate whose provider is in scope gets the messages with the request's placeholders.
   */
  private protect(p: RequestProtection, candidates: ChatCandidate[], input: ChatCallInput): ChatCandidate[] {
    const stop = candidates.findIndex((c) => !p.allows(c.model));
    let out = stop < 0 ? candidates : candidates.slice(0, stop);
    if (!p.detects) return out;
    if (out.some((c) => p.blocksFor(c.model))) {
      const counts = p.scan([...messageTexts(input.messages), ...toolTexts(input.params.tools)]);
      if (Object.keys(counts).length) {
        if (p.blocksFor(out[0].model)) throw p.refuse(counts, 'messages');
        out = out.filter((c) => !p.blocksFor(c.model));
      }
    }
    return out.map((c) =>
      p.masksFor(c.model)
        ? { ...c, request: { ...c.request, messages: maskMessages(c.request.messages, (t) => p.mask(t)) } }
        : c,
    );
  }

  /**
   * The candidates a hold of `heldMicro` can run: all of them as prepared when it covers the worst
   * case; otherwise (a flexible hold: the balance could not cover the full output) each with its
   * output capped to what the hold affords, and those that cannot give the least output left out.
   */
  fitCandidates(prep: PreparedChat, heldMicro: number): ChatCandidate[] {
    if (prep.minHoldMicro === undefined || heldMicro >= prep.holdMicro) return prep.candidates;
    const n = prep.input.params.n ?? 1;
    const least = prep.input.minOutputTokens ?? MIN_CAPPED_OUTPUT_TOKENS;
    const fitted: ChatCandidate[] = [];
    for (const c of prep.candidates) {
      const max = c.request.max_tokens ?? c.model.max_output_tokens;
      if (c.holdMicro <= heldMicro || c.promptHoldTokens === undefined) {
        fitted.push(c);
        continue;
      }
      const out = chatOutputWithin(heldMicro, c.promptHoldTokens, max, c.model.pricing, prep.images, n);
      if (out < Math.min(least, max)) continue;
      fitted.push({ ...c, request: { ...c.request, max_tokens: out }, cappedOutput: out });
    }
    return fitted.length ? fitted : prep.candidates;
  }

  /** Tells the caller (a response header) that this attempt's output was capped to the balance. */
  private announceCap(prep: PreparedChat, c: ChatCandidate): void {
    const ctx = this.requests?.get(prep.input.requestId);
    if (!ctx) return;
    if (c.cappedOutput !== undefined) ctx.setHeaders({ [MAX_TOKENS_CAPPED_HEADER]: String(c.cappedOutput) });
    else ctx.removeHeader(MAX_TOKENS_CAPPED_HEADER);
  }

  /**
   * Holds, before a context is retrieved, the retrieval's worst case plus the answer's: the request's
   * messages with up to `contextTokens` more prompt tokens and `images` more images, on the dearest
   * model that may serve it, with the output cap the messages alone would get.
   */
  openRequestHold(
    input: ChatCallInput,
    bound: { retrievalMicro: number; contextTokens: number; images: number },
  ): Promise<RequestHold> {
    const { model, fallbacks } = this.check(input);
    const p = input.params;
    const images = imageParts(input.messages).length + bound.images;
    const base = this.countPrompt(input.messages, p);
    const text = input.messages.map((m) => messageText(m)).join('\n') + (p.tools ? JSON.stringify(p.tools) : '');
    const caps = input.capOutput ?? p.max_tokens === undefined;
    const least = input.minOutputTokens ?? MIN_CAPPED_OUTPUT_TOKENS;
    let answerMicro = 0;
    let leastMicro = Infinity;
    for (const m of [model, ...fallbacks]) {
      const maxOutput = p.max_tokens ?? Math.max(1, Math.min(m.max_output_tokens, m.context_window - base));
      const prompt = Math.min(m.context_window, base + bound.contextTokens);
      const holdTokens =
        this.pricing.holdTokens(prompt, { exact: this.registry.countsTokensExactly(m), text }) +
        images * IMAGE_TOKEN_ESTIMATE;
      const n = p.n ?? 1;
      answerMicro = Math.max(answerMicro, chatTokensHoldMicro(holdTokens, maxOutput * n, m.pricing, images));
      if (this.registry.isAvailable(m))
        leastMicro = Math.min(
          leastMicro,
          chatTokensHoldMicro(holdTokens, Math.min(least, maxOutput) * n, m.pricing, images),
        );
    }
    return this.billing.openRequestHold({
      teamId: input.caller.teamId,
      requestId: input.requestId,
      caller: input.caller,
      holdMicro: bound.retrievalMicro + answerMicro,
      // the context's worst case is always held (no refusal once retrieval was paid); the answer's
      // output may be capped to what is left of it after the context is assembled
      ...(caps && leastMicro !== Infinity ? { minMicro: bound.retrievalMicro + leastMicro } : {}),
    });
  }

  /** Prompt tokens of messages and tools as the pipeline counts them (o200k; images counted apart). */
  countPrompt(messages: ChatMessage[], params: ChatParams): number {
    const counted = this.tokenizers.chat.countChat(messages.map((m) => ({ role: m.role, content: messageText(m) })));
    return counted + (params.tools ? this.tokenizers.chat.count(JSON.stringify(params.tools)) : 0);
  }

  /** The request's `fallbacks` (each must exist: 404 / 400), else the catalog's (chat models only), without the model itself or repeats. */
  private fallbackModels(model: ModelEntry, requested: string[] | undefined): ModelEntry[] {
    const keys = (requested ?? model.fallbacks).filter((k, i, all) => k !== model.key && all.indexOf(k) === i);
    if (requested) return keys.map((k) => this.requireFallback(k));
    // a catalog fallback that cannot be priced now (USD, no rate) is skipped like an unavailable one
    return keys.map((k) => this.catalog.findPriceable(k)).filter((m): m is ModelEntry => m?.kind === 'chat');
  }

  /** A fallback named in the request must exist and be a chat model (404 / 400 on `fallbacks`). */
  private requireFallback(key: string): ModelEntry {
    const m = this.catalog.find(key);
    if (!m)
      throw ApiError.notFound(
        `The fallback model '${key}' does not exist. GET /v1/models lists the available models.`,
        'model_not_found',
        'fallbacks',
      );
    if (m.kind !== 'chat')
      throw ApiError.badRequest(
        `The fallback model '${key}' is a ${m.kind} model, not a chat model.`,
        'fallbacks',
        'invalid_model',
      );
    return m;
  }

  /** The capability and size checks of one model, and what it would hold. Throws 400 when it cannot take the request. */
  private plan(
    model: ModelEntry,
    input: ChatCallInput,
    promptTokens: number,
    images: number,
    promptText: string,
  ): { model: ModelEntry; maxOutput: number; holdMicro: number; promptHoldTokens: number; minHoldMicro: number } {
    const p = input.params;
    if (images && !model.supports_images)
      throw ApiError.badRequest(
        `The model '${model.key}' does not accept images.`,
        input.imageParam,
        'images_not_supported',
      );
    if (p.tools?.length && !model.supports_tools)
      throw ApiError.badRequest(`The model '${model.key}' does not support tools.`, 'tools', 'tools_not_supported');
    if ((p.n ?? 1) > 1 && !model.supports_n)
      throw ApiError.badRequest(`The model '${model.key}' does not support n > 1.`, 'n', 'n_not_supported');
    assertControls(model, p, input.controlParam);
    if (p.response_format && p.response_format.type !== 'text' && !model.supports_json) {
      throw ApiError.badRequest(
        `The model '${model.key}' does not support structured output.`,
        'response_format',
        'json_not_supported',
      );
    }
    if (promptTokens > model.context_window) {
      throw ApiError.badRequest(
        `This model's maximum context length is ${model.context_window} tokens; the messages use about ${promptTokens}.`,
        'messages',
        'context_length_exceeded',
      );
    }
    if (p.max_tokens !== undefined && p.max_tokens > model.max_output_tokens && !input.capsMaxTokens?.(model)) {
      throw ApiError.badRequest(
        `max_tokens is too large: ${p.max_tokens}. The model '${model.key}' supports at most ${model.max_output_tokens} completion tokens.`,
        'max_tokens',
        'invalid_value',
      );
    }
    const maxOutput =
      p.max_tokens !== undefined
        ? Math.min(p.max_tokens, model.max_output_tokens)
        : Math.max(1, Math.min(model.max_output_tokens, model.context_window - promptTokens));
    const holdTokens =
      this.pricing.holdTokens(promptTokens, { exact: this.registry.countsTokensExactly(model), text: promptText }) +
      images * IMAGE_TOKEN_ESTIMATE;
    const n = p.n ?? 1;
    const least = Math.min(input.minOutputTokens ?? MIN_CAPPED_OUTPUT_TOKENS, maxOutput);
    return {
      model,
      maxOutput,
      holdMicro: chatTokensHoldMicro(holdTokens, maxOutput * n, model.pricing, images),
      promptHoldTokens: holdTokens,
      minHoldMicro: chatTokensHoldMicro(holdTokens, least * n, model.pricing, images),
    };
  }

  /** Non-streaming call. `validate` may reject the answer (e.g. invalid JSON): nothing is charged then. */
  async complete(
    prep: PreparedChat,
    signal: AbortSignal,
    validate?: (r: CanonicalChatResponse, model: ModelEntry) => void,
  ): Promise<ChatOutcome> {
    let usage: CanonicalUsage | null = null;
    let cost: ChatCost | null = null;
    let usageEstimated = false;
    const progress = this.progress(prep);
    const { result: response, charged } = await this.billing.meter({
      teamId: prep.input.caller.teamId,
      caller: prep.input.caller,
      requestId: prep.input.requestId,
      holdMicro: prep.holdMicro,
      minMicro: prep.minHoldMicro,
      estimatedTokens: prep.promptTokens,
      // the answer is the request's last paid step: what its hold leaves of the request's is released
      within: prep.input.within ? { hold: prep.input.within, last: true } : undefined,
      run: async (held) => {
        try {
          const routed = await this.router.run(
            this.fitCandidates(prep, held),
            async (c, provider) => {
              this.announceCap(prep, c);
              const r = prep.upstream
                ? await prep.upstream.complete(c, provider, signal)
                : await provider.complete(c.request, signal);
              const restored = prep.protection ? restoreResponse(r, prep.protection) : r;
              validate?.(restored, c.model);
              return restored;
            },
            { signal, requestId: prep.input.requestId, progress, policy: prep.input.caller.dataPolicy },
          );
          return routed.result;
        } catch (err) {
          throw this.toApiError(err, prep, progress.candidate.model);
        }
      },
      charge: (r) => {
        const served = progress.candidate.model;
        usageEstimated = r.usage === null;
        usage =
          r.usage ??
          this.countUsage(
            prep,
            r.choices
              .map((c) =>
                [
                  c.message.content ?? '',
                  c.message.reasoning_content ?? '',
                  ...(c.message.tool_calls ?? []).map(toolText),
                ].join(''),
              )
              .join(''),
          );
        cost = chatTokensCharge(usage, served.pricing, prep.images);
        return this.chargeFor(prep, served, usage, cost, usageEstimated, progress);
      },
    });
    const served = progress.candidate.model;
    return {
      response: { ...response, model: served.key },
      usage: usage!,
      cost: cost!,
      chargedMicro: charged?.chargedMicro ?? 0,
      usageEstimated,
      servedModel: served,
      routing: routingOf(progress),
    };
  }

  /**
   * Streaming call: every chunk (model renamed to the served catalog key, usage stripped) goes to
   * `sink`. Before the first chunk reached `sink`, a retryable failure is retried or handed to a
   * fallback; after it, never. Usage comes from the provider's final report; on client abort the
   * delivered tokens are counted and charged. An upstream failure mid-stream charges the delivered
   * tokens (nothing when none were) and rethrows as an ApiError for the caller to put in-band.
   */
  async stream(
    prep: PreparedChat,
    signal: AbortSignal,
    sink: (chunk: CanonicalChatChunk) => Promise<void>,
  ): Promise<StreamOutcome> {
    let text = '';
    let reasoning = '';
    let toolArgs = '';
    let usage: CanonicalUsage | null = null;
    let meta: { id: string; created: number } | null = null;
    let aborted = false;
    let forwarded = false;
    let finalUsage: CanonicalUsage | null = null;
    let usageEstimated = false;
    let cost: ChatCost | null = null;
    // the prompt side the upstream reported when the answer started (a cut stream is charged with it)
    let reportedPrompt: PromptUsage | null = null;
    const progress = this.progress(prep);
    const restorer = prep.protection?.restores ? new ChunkRestorer(prep.protection) : null;
    const { charged } = await this.billing.meter({
      teamId: prep.input.caller.teamId,
      caller: prep.input.caller,
      requestId: prep.input.requestId,
      holdMicro: prep.holdMicro,
      minMicro: prep.minHoldMicro,
      estimatedTokens: prep.promptTokens,
      // the answer is the request's last paid step: what its hold leaves of the request's is released
      within: prep.input.within ? { hold: prep.input.within, last: true } : undefined,
      run: async (held) => {
        try {
          await this.router.run(
            this.fitCandidates(prep, held),
            async (c, provider) => {
              // a failed attempt forwarded nothing: start from a clean slate
              usage = null;
              meta = null;
              reportedPrompt = null;
              this.announceCap(prep, c);
              const iterable = prep.upstream
                ? await prep.upstream.stream(c, provider, signal)
                : await provider.stream(c.request, signal);
              try {
                for await (const chunk of iterable) {
                  meta ??= { id: chunk.id, created: chunk.created };
                  if (chunk.usage) usage = chunk.usage;
                  if (chunk.promptUsage) reportedPrompt = chunk.promptUsage;
                  // usage-only chunks stay inside; chunks carrying upstream events are relayed
                  if (chunk.choices.length === 0 && !chunk.passthrough?.length) continue;
                  for (const ch of chunk.choices) {
                    text += ch.delta.content ?? '';
                    reasoning += ch.delta.reasoning_content ?? '';
                    for (const t of ch.delta.tool_calls ?? [])
                      toolArgs += (t.function?.name ?? '') + (t.function?.arguments ?? '');
                  }
                  const { usage: _drop, promptUsage: _prompt, ...rest } = chunk;
                  forwarded = true;
                  await sink({ ...(restorer ? restorer.chunk(rest) : rest), model: c.model.key });
                  if (signal.aborted) break;
                }
                const started = meta as { id: string; created: number } | null;
                const held = !signal.aborted && started ? restorer?.flush({ ...started, model: c.model.key }) : null;
                if (held) await sink(held);
                if (signal.aborted) aborted = true;
              } catch (err) {
                if (!(signal.aborted || isProviderAbortError(err))) throw err;
                aborted = true;
              }
            },
            {
              signal,
              requestId: prep.input.requestId,
              progress,
              committed: () => forwarded,
              policy: prep.input.caller.dataPolicy,
            },
          );
        } catch (err) {
          throw this.toApiError(err, prep, progress.candidate.model);
        }
      },
      // aborted: whatever the provider reported is incomplete — charge what was delivered
      charge: () => {
        const served = progress.candidate.model;
        usageEstimated = aborted || usage === null;
        finalUsage =
          !usageEstimated && usage ? usage : this.countUsage(prep, text + reasoning + toolArgs, reportedPrompt);
        cost = chatTokensCharge(finalUsage, served.pricing, prep.images);
        return this.chargeFor(prep, served, finalUsage, cost, usageEstimated, progress);
      },
      // the upstream failed after text was streamed: the client keeps it and the provider bills it
      chargeOnFailure: () => {
        const delivered = text + reasoning + toolArgs;
        if (delivered === '') return null;
        const served = progress.candidate.model;
        const partial = this.countUsage(prep, delivered, reportedPrompt);
        this.logger.warn(
          { requestId: prep.input.requestId, model: served.key, completionTokens: partial.completion_tokens },
          'upstream failed mid-stream: charged the delivered tokens',
        );
        return this.chargeFor(
          prep,
          served,
          partial,
          chatTokensCharge(partial, served.pricing, prep.images),
          true,
          progress,
        );
      },
    });
    if (aborted)
      this.logger.log(
        { requestId: prep.input.requestId, completionTokens: finalUsage!.completion_tokens },
        'client disconnected: charged delivered tokens',
      );
    const served = progress.candidate.model;
    const m = meta as { id: string; created: number } | null;
    const response: CanonicalChatResponse = {
      id: m?.id ?? `chatcmpl-${prep.input.requestId}`,
      object: 'chat.completion',
      created: m?.created ?? Math.floor(this.clock.now() / 1000),
      model: served.key,
      choices: [],
      usage: finalUsage!,
    };
    return {
      response,
      usage: finalUsage!,
      cost: cost!,
      chargedMicro: charged?.chargedMicro ?? 0,
      usageEstimated,
      aborted,
      // what the caller was sent: the request's placeholders restored
      text: prep.protection?.restore(text) ?? text,
      reasoning: prep.protection?.restore(reasoning) ?? reasoning,
      servedModel: served,
      routing: routingOf(progress),
    };
  }

  /**
   * The streaming call as an async iterable: `chunk` events, then one `end` with the outcome (after
   * the charge). Errors are thrown as by `stream` (an ApiError; before the first chunk nothing was
   * sent). A consumer that stops early (`break` / `return()`) aborts the upstream call; the
   * iteration then finishes only once the delivered tokens were charged (outcome.aborted).
   */
  async *events(prep: PreparedChat, signal: AbortSignal): AsyncGenerator<ChatStreamEvent, void, undefined> {
    const ac = new AbortController();
    const abort = (): void => ac.abort();
    if (signal.aborted) abort();
    else signal.addEventListener('abort', abort, { once: true });
    try {
      const outcome = yield* pullFrom<ChatStreamEvent, StreamOutcome>(
        (push) => this.stream(prep, ac.signal, (chunk) => push({ type: 'chunk', chunk })),
        abort,
      );
      yield { type: 'end', outcome };
    } finally {
      signal.removeEventListener('abort', abort);
    }
  }

  /**
   * `events` turned into an endpoint's wire events: `chunk` maps each delivered chunk, `error` gives
   * the in-band error events of a failure after the first chunk (before it, the error is thrown: a
   * plain HTTP error), `end` the closing events of a stream that finished (none after an abort).
   */
  async *relay<E>(prep: PreparedChat, signal: AbortSignal, steps: RelaySteps<E>): AsyncGenerator<E, void, undefined> {
    let started = false;
    let out: StreamOutcome | null = null;
    try {
      for await (const e of this.events(prep, signal)) {
        if (e.type === 'end') {
          out = e.outcome;
          break;
        }
        started = true;
        yield* steps.chunk(e.chunk);
      }
    } catch (err) {
      if (!started) throw err;
      yield* steps.error(err);
      return;
    }
    if (out && !out.aborted) yield* steps.end(out);
  }

  private progress(prep: PreparedChat): RouteProgress<ChatCandidate> {
    return { candidate: prep.candidates[0], deployment: '', attempts: 0, retries: 0, fallbacks: 0 };
  }

  /**
   * Usage the gateway counts: the delivered text with its tokenizer; the prompt as the upstream
   * reported it when the answer started (`reported`, e.g. Anthropic's message_start), else as counted.
   */
  private countUsage(prep: PreparedChat, delivered: string, reported: PromptUsage | null = null): CanonicalUsage {
    const completion = this.tokenizers.chat.count(delivered);
    const prompt = reported ?? {
      prompt_tokens: prep.promptTokens + prep.images * IMAGE_TOKEN_ESTIMATE,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
    };
    return { ...prompt, completion_tokens: completion, total_tokens: prompt.prompt_tokens + completion };
  }

  private chargeFor(
    prep: PreparedChat,
    served: ModelEntry,
    usage: CanonicalUsage,
    cost: ChatCost,
    estimated: boolean,
    progress: RouteProgress<ChatCandidate>,
  ): MeteredCharge {
    const routed =
      served.key !== prep.model.key || progress.retries > 0
        ? { requested_model: prep.model.key, retries: progress.retries, fallbacks: progress.fallbacks }
        : {};
    return {
      costMicro: cost.totalMicro,
      details: {
        endpoint: prep.input.endpoint,
        model: served.key,
        apiKeyId: prep.input.caller.apiKeyId,
        promptTokens: usage.prompt_tokens,
        completionTokens: usage.completion_tokens,
        totalTokens: usage.prompt_tokens + usage.completion_tokens,
        fx: served.fx ?? null,
        breakdown: {
          ...cost,
          cache_read_tokens: usage.cache_read_tokens,
          cache_write_tokens: usage.cache_write_tokens,
          ...(usage.cache_write_1h_tokens ? { cache_write_1h_tokens: usage.cache_write_1h_tokens } : {}),
          ...(usage.reasoning_tokens ? { reasoning_tokens: usage.reasoning_tokens } : {}),
          images: prep.images,
          usage_estimated: estimated,
          ...routed,
        },
      },
    };
  }

  private toApiError(err: unknown, prep: PreparedChat, model: ModelEntry): ApiError {
    if (err instanceof ProviderError && err.kind === 'auth') {
      this.logger.error(
        { provider: model.provider, status: err.upstreamStatus },
        'provider rejected the gateway credentials',
      );
    } else if (!(err instanceof ApiError) && !(err instanceof ProviderError) && !isProviderAbortError(err)) {
      this.logger.error({ err, requestId: prep.input.requestId }, 'unexpected chat failure');
    }
    return providerErrorToApiError(err, model);
  }
}

function routingOf(p: RouteProgress<ChatCandidate>): ChatRouting {
  return { attempts: p.attempts, retries: p.retries, fallbacks: p.fallbacks, deployment: p.deployment };
}

function toolText(t: ToolCall): string {
  return t.function.name + t.function.arguments;
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
