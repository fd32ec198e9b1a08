import { Logger } from '@nestjs/common';
import { ApiError } from '@app/common';
import { assertModelAllowed, modelAllowed } from '@app/auth';
import { BillingService, chatTokensHoldMicro, PricingService, RequestHold } from '@app/billing';
import {
  ChatMessage,
  ModelCatalogService,
  ModelEntry,
  ProviderRegistry,
  TokenizerService,
  modelRefusedByPolicy,
  policyAllowsModel,
} from '@app/providers';
import { DataProtection, RequestProtection } from '@app/data-protection';
import { assertControls } from '../chat-controls';
import { maskMessages, messageTexts, toolTexts } from '../chat-protection';
import { ImageInliner, MAX_IMAGES } from '../image-inliner';
import { imageParts, messageText } from '../messages';
import {
  ChatCallInput,
  ChatCandidate,
  ChatChecked,
  ChatCheckInput,
  ChatParams,
  IMAGE_TOKEN_ESTIMATE,
  MIN_CAPPED_OUTPUT_TOKENS,
  PreparedChat,
} from './chat.types';

/**
 * A chat request made ready to call: the checks (model, fallbacks, capabilities, limits), the
 * prompt's token count, the images fetched, the candidates (the requested model, then the
 * fallbacks that can take the request) under the caller's data policy, and the hold they need.
 */
export class ChatPreparation {
  private readonly logger = new Logger('Chat');

  constructor(
    private readonly catalog: ModelCatalogService,
    private readonly registry: ProviderRegistry,
    private readonly billing: BillingService,
    private readonly pricing: PricingService,
    private readonly images: ImageInliner,
    private readonly tokenizers: TokenizerService,
    private readonly protection: DataProtection,
  ) {}

  /**
   * The checks that need no I/O (model, fallbacks named in the request, provider credentials,
   * the requested model's capabilities, image count). Callers that do billed work before the call
   * (context retrieval) run it first so that a request the pipeline would refuse charges nothing.
   */
  check(input: ChatCheckInput): ChatChecked {
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
    assertAccepts(model, input, imageParts(input.messages).length, true);
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
    const { model, fallbacks: fallbackModels } = input.checked ?? this.check(input);
    const primaryMissing = this.registry.isAvailable(model) ? null : () => this.registry.chat(model);
    const p = input.params;
    const imgs = imageParts(input.messages);
    const promptTokens = input.promptTokens ?? this.countPrompt(input.messages, p);
    // the prompt's text is needed only for the hold of a model whose tokens the gateway cannot count exactly
    let text: string | undefined;
    const promptText = (): string =>
      (text ??= input.messages.map((m) => messageText(m)).join('\n') + (p.tools ? JSON.stringify(p.tools) : ''));

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
    promptText: () => string,
  ): { model: ModelEntry; maxOutput: number; holdMicro: number; promptHoldTokens: number; minHoldMicro: number } {
    const p = input.params;
    assertAccepts(model, input, images, false);
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
    const exact = this.registry.countsTokensExactly(model);
    const holdTokens =
      this.pricing.holdTokens(promptTokens, exact ? { exact } : { exact, text: promptText() }) +
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
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/**
 * What the model must support for the request, in the order the refusals are given: images (and, with
 * `limitImages`, their number), tools, n > 1, the reasoning controls, structured output.
 */
function assertAccepts(
  model: ModelEntry,
  input: Pick<ChatCallInput, 'params' | 'imageParam' | 'controlParam'>,
  images: number,
  limitImages: boolean,
): void {
  const p = input.params;
  if (images && !model.supports_images)
    throw ApiError.badRequest(
      `The model '${model.key}' does not accept images.`,
      input.imageParam,
      'images_not_supported',
    );
  if (limitImages && images > MAX_IMAGES)
    throw ApiError.tooLarge(`At most ${MAX_IMAGES} images per request (got ${images}).`, input.imageParam);
  if (p.tools?.length && !model.supports_tools)
    throw ApiError.badRequest(`The model '${model.key}' does not support tools.`, 'tools', 'tools_not_supported');
  if ((p.n ?? 1) > 1 && !model.supports_n)
    throw ApiError.badRequest(`The model '${model.key}' does not support n > 1.`, 'n', 'n_not_supported');
  assertControls(model, p, input.controlParam);
  if (p.response_format && p.response_format.type !== 'text' && !model.supports_json)
    throw ApiError.badRequest(
      `The model '${model.key}' does not support structured output.`,
      'response_format',
      'json_not_supported',
    );
}
