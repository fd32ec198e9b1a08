import { Injectable, Logger, Optional } from '@nestjs/common';
import { ApiError, Clock, RequestContexts } from '@app/common';
import {
  BillingService,
  ChatCost,
  chatOutputWithin,
  chatTokensCharge,
  PricingService,
  RequestHold,
} from '@app/billing';
import {
  CanonicalChatChunk,
  CanonicalChatResponse,
  CanonicalUsage,
  PromptUsage,
  ChatMessage,
  isProviderAbortError,
  ModelCatalogService,
  ModelEntry,
  ProviderError,
  providerErrorToApiError,
  ProviderRegistry,
  RouteProgress,
  TokenizerService,
  UpstreamRouter,
} from '@app/providers';
import { DataProtection } from '@app/data-protection';
import { ChunkRestorer, restoreResponse } from './chat-protection';
import { pullFrom } from './event-stream';
import { ImageInliner } from './image-inliner';
import {
  ChatCallInput,
  ChatCandidate,
  ChatChecked,
  ChatCheckInput,
  ChatOutcome,
  ChatParams,
  ChatStreamEvent,
  MAX_TOKENS_CAPPED_HEADER,
  MIN_CAPPED_OUTPUT_TOKENS,
  PreparedChat,
  RelaySteps,
  StreamOutcome,
} from './pipeline/chat.types';
import { ChatPreparation } from './pipeline/chat-preparation';
import { chargeFor, countUsage, routingOf, toolText } from './pipeline/chat-usage';

export * from './pipeline/chat.types';

/**
 * The chat pipeline shared by /api/v1/chat and /v1/chat/completions:
 *   prepare  — model + capability checks, limits, token count, image fetch, candidates, hold size
 *   complete / stream — reservation (402), provider call through the UpstreamRouter (retries,
 *              fallbacks, deployments), usage, exact cost at the served model's prices, settle
 *              (or release on failure)
 * The request's preparation lives in pipeline/chat-preparation.ts, usage and charges in
 * pipeline/chat-usage.ts.
 */
@Injectable()
export class ChatService {
  private readonly logger = new Logger('Chat');
  private readonly preparation: ChatPreparation;

  constructor(
    catalog: ModelCatalogService,
    registry: ProviderRegistry,
    private readonly billing: BillingService,
    pricing: PricingService,
    images: ImageInliner,
    private readonly tokenizers: TokenizerService,
    private readonly router: UpstreamRouter,
    @Optional() private readonly clock: Clock = new Clock(),
    @Optional() private readonly requests?: RequestContexts,
    @Optional() protection: DataProtection = new DataProtection(),
  ) {
    this.preparation = new ChatPreparation(catalog, registry, billing, pricing, images, tokenizers, protection);
  }

  /**
   * The checks that need no I/O (model, fallbacks named in the request, provider credentials,
   * the requested model's capabilities, image count). Callers that do billed work before the call
   * (context retrieval) run it first so that a request the pipeline would refuse charges nothing.
   */
  check(input: ChatCheckInput): ChatChecked {
    return this.preparation.check(input);
  }

  /**
   * Candidates and the hold. A context (project / knowledge base) was sized for the requested model
   * before this; a fallback whose window cannot take the assembled messages is left out like any
   * fallback that cannot take the request.
   */
  async prepare(input: ChatCallInput): Promise<PreparedChat> {
    return this.preparation.prepare(input);
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
    return this.preparation.openRequestHold(input, bound);
  }

  /** Prompt tokens of messages and tools as the pipeline counts them (o200k; images counted apart). */
  countPrompt(messages: ChatMessage[], params: ChatParams): number {
    return this.preparation.countPrompt(messages, params);
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
          countUsage(
            this.tokenizers,
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
        return chargeFor(prep, served, usage, cost, usageEstimated, progress);
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
          !usageEstimated && usage
            ? usage
            : countUsage(this.tokenizers, prep, text + reasoning + toolArgs, reportedPrompt);
        cost = chatTokensCharge(finalUsage, served.pricing, prep.images);
        return chargeFor(prep, served, finalUsage, cost, usageEstimated, progress);
      },
      // the upstream failed after text was streamed: the client keeps it and the provider bills it
      chargeOnFailure: () => {
        const delivered = text + reasoning + toolArgs;
        if (delivered === '') return null;
        const served = progress.candidate.model;
        const partial = countUsage(this.tokenizers, prep, delivered, reportedPrompt);
        this.logger.warn(
          { requestId: prep.input.requestId, model: served.key, completionTokens: partial.completion_tokens },
          'upstream failed mid-stream: charged the delivered tokens',
        );
        return chargeFor(prep, served, partial, chatTokensCharge(partial, served.pricing, prep.images), true, progress);
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
