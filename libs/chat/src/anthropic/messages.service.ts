import { DataProtection, type RequestProtection } from '@app/data-protection';
import { Injectable, Optional } from '@nestjs/common';
import { anthropicErrorBody, ApiError, toApiError } from '@app/common';
import { assertModelAllowed, type Caller } from '@app/auth';
import {
  CanonicalChatChunk,
  CanonicalChatResponse,
  ChatProvider,
  ModelCatalogService,
  ProviderRegistry,
  modelRefusedByPolicy,
  policyAllowsModel,
  providerErrorToApiError,
  SseEvent as UpstreamEvent,
} from '@app/providers';
import { messageTexts } from '../chat-protection';
import {
  ChatCandidate,
  ChatService,
  IMAGE_TOKEN_ESTIMATE,
  MIN_CAPPED_OUTPUT_TOKENS,
  PreparedChat,
  UpstreamCall,
} from '../chat.service';
import { CostRubDto, costToRub } from '../chat-cost';
import type { EventStream, SseEvent } from '../event-stream';
import { imageParts } from '../messages';
import { MessagesRequest, readMessagesRequest, translationProblem } from './messages-request';
import { AnthropicStreamTranslator, toAnthropicMessage } from './messages-response';

const ENDPOINT = '/v1/messages';

type Json = Record<string, unknown>;

/** The client's Anthropic headers that travel to an Anthropic upstream (never its credentials). */
export interface AnthropicClientHeaders {
  'anthropic-version'?: string;
  'anthropic-beta'?: string;
}

export interface PreparedMessages {
  prep: PreparedChat;
  request: MessagesRequest;
}

/**
 * POST /v1/messages and /v1/messages/count_tokens: the Anthropic Messages API on the chat pipeline
 * (holds, exact charges, rate limits, retries and fallbacks as on /v1/chat/completions). Models
 * whose upstream speaks the Messages API get the client's body as sent (model id swapped) and
 * answer with the upstream's own body / events; every other model gets the canonical reading of
 * the request and answers are translated back. A `cost` member is added to the message (and, when
 * streaming, to message_delta).
 */
@Injectable()
export class MessagesService {
  /** a `ping` event after this long without one, once a stream started (Anthropic's keep-alive) */
  pingIntervalMs = 10_000;

  constructor(
    private readonly chat: ChatService,
    private readonly catalog: ModelCatalogService,
    private readonly registry: ProviderRegistry,
    @Optional() private readonly protection: DataProtection = new DataProtection(),
  ) {}

  async prepare(
    caller: Caller,
    body: Json,
    headers: AnthropicClientHeaders,
    requestId: string,
  ): Promise<PreparedMessages> {
    const request = readMessagesRequest(body, body.max_tokens as number);
    const model = this.catalog.require(String(body.model), 'chat');
    if (!this.registry.speaksMessagesApi(model)) {
      const problem = translationProblem(request, model.key);
      if (problem) throw problem;
    }
    const prep = await this.chat.prepare({
      caller,
      requestId,
      endpoint: ENDPOINT,
      modelKey: model.key,
      messages: request.messages,
      params: request.params,
      imageParam: 'messages',
      sendsOwnBody: (m) => this.registry.speaksMessagesApi(m),
      // Anthropic clients size max_tokens for Claude (Claude Code: 32000): a translated model gets its own cap
      capsMaxTokens: (m) => !this.registry.speaksMessagesApi(m),
      // max_tokens is required here, so it is a ceiling: capped to what the balance affords, but
      // never below an extended-thinking budget (Anthropic requires max_tokens above it)
      capOutput: true,
      minOutputTokens: thinkingFloor(body),
    });
    // a fallback that would need the translation but cannot take the request is left out
    const candidates = prep.candidates.filter(
      (c, i) =>
        i === 0 || this.registry.speaksMessagesApi(c.model) || translationProblem(request, c.model.key) === null,
    );
    const runnable = candidates.filter((c) => this.registry.isAvailable(c.model));
    const holdMicro = runnable.length ? Math.max(...runnable.map((c) => c.holdMicro)) : prep.holdMicro;
    const minHoldMicro = runnable.length ? Math.min(...runnable.map((c) => c.minHoldMicro!)) : prep.minHoldMicro;
    return {
      prep: {
        ...prep,
        candidates,
        holdMicro,
        minHoldMicro,
        upstream: this.upstreamCall(body, headers, prep.protection),
      },
      request,
    };
  }

  /**
   * The attempt of one candidate: natively through its Messages API, else the canonical request —
   * also when the data policy masks personal data for it (the canonical request carries the
   * placeholders, the caller's own body would not).
   */
  private upstreamCall(body: Json, headers: AnthropicClientHeaders, protection?: RequestProtection): UpstreamCall {
    const forward = forwarded(headers);
    // the caller's body, but for the model id and a max_tokens capped to the balance
    const nativeBody = (c: ChatCandidate): Json => ({
      ...body,
      model: c.model.upstream_model,
      ...(c.cappedOutput !== undefined ? { max_tokens: c.cappedOutput } : {}),
    });
    const native = (c: ChatCandidate, provider: ChatProvider) =>
      this.registry.speaksMessagesApi(c.model) && !protection?.masksFor(c.model) ? provider.messagesApi : undefined;
    return {
      complete: (c, provider, signal): Promise<CanonicalChatResponse> => {
        const api = native(c, provider);
        return api ? api.create(nativeBody(c), forward, signal) : provider.complete(c.request, signal);
      },
      stream: (c, provider, signal): Promise<AsyncIterable<CanonicalChatChunk>> => {
        const api = native(c, provider);
        return api ? api.stream(nativeBody(c), forward, signal) : provider.stream(c.request, signal);
      },
    };
  }

  async complete(
    { prep }: PreparedMessages,
    signal: AbortSignal,
  ): Promise<{ body: Json; cost: CostRubDto; servedModel: string }> {
    const out = await this.chat.complete(prep, signal);
    const cost = costToRub(out.cost, out.chargedMicro);
    const passthrough = out.response.passthrough;
    const message =
      passthrough !== undefined && typeof passthrough === 'object' && passthrough !== null
        ? (passthrough as Json)
        : toAnthropicMessage(out.response, out.servedModel.key, out.usage);
    return { body: { ...message, cost }, cost, servedModel: out.servedModel.key };
  }

  /**
   * The stream in Anthropic's event sequence. Events of a native upstream are relayed as they
   * came, but for message_delta and message_stop, held until the charge is settled so that
   * message_delta can carry `cost`. After a failure mid-stream: one `error` event.
   */
  stream({ prep }: PreparedMessages, signal: AbortSignal): EventStream<SseEvent> {
    const headers: Record<string, string> = {};
    const translator = new AnthropicStreamTranslator(prep.model.key, prep.promptTokens);
    const held: UpstreamEvent[] = [];
    let native = false;
    const events = this.chat.relay<SseEvent>(prep, signal, {
      *chunk(chunk) {
        headers['x-gateway-model'] ??= chunk.model;
        if (!chunk.passthrough) {
          yield* translator.chunk(chunk);
          return;
        }
        native = true;
        for (const e of chunk.passthrough) {
          const name = e.event ?? eventType(e.data);
          if (name === 'message_delta' || name === 'message_stop') held.push(e);
          else yield { event: name, data: e.data };
        }
      },
      *error(err) {
        yield { event: 'error', data: anthropicErrorBody(toApiError(err).error) };
      },
      *end(out) {
        headers['x-gateway-model'] ??= out.servedModel.key;
        const cost = costToRub(out.cost, out.chargedMicro);
        if (!native) {
          yield* translator.end(out.usage, { cost });
          return;
        }
        for (const e of held) {
          const name = e.event ?? eventType(e.data);
          yield { event: name, data: name === 'message_delta' ? withCost(e.data, cost) : e.data };
        }
      },
    });
    return { headers, events: withPings(events, this.pingIntervalMs) };
  }

  /**
   * Input tokens of a request, never charged: the provider's own count for a model whose upstream
   * speaks the Messages API (its free counting endpoint), else the gateway's tokenizer (exact for
   * models billed with it, an estimate for the others). The key's model allowlist applies (403
   * model_not_allowed before any upstream call).
   */
  async countTokens(
    caller: Caller,
    body: Json,
    headers: AnthropicClientHeaders,
    signal: AbortSignal,
  ): Promise<{ input_tokens: number }> {
    const request = readMessagesRequest(body, undefined);
    const model = this.catalog.require(String(body.model), 'chat');
    assertModelAllowed(caller, model.key);
    if (!policyAllowsModel(caller.dataPolicy, model)) throw modelRefusedByPolicy(model.key);
    // personal data in scope of the data policy: refused (block), or counted here rather than sent (mask)
    const p = this.protection.forRequest(caller);
    p.screenFor(model, messageTexts(request.messages), 'messages');
    if (this.registry.speaksMessagesApi(model) && !p.masksFor(model)) {
      const provider = this.registry.chatDeployments(model)[0].provider;
      if (provider.messagesApi) {
        try {
          const counted = await provider.messagesApi.countTokens(
            { ...body, model: model.upstream_model },
            forwarded(headers),
            signal,
          );
          return { input_tokens: counted };
        } catch (err) {
          throw providerErrorToApiError(err, model);
        }
      }
    }
    const problem = this.registry.speaksMessagesApi(model) ? null : translationProblem(request, model.key);
    if (problem) throw problem;
    const images = imageParts(request.messages).length;
    return { input_tokens: this.chat.countPrompt(request.messages, request.params) + images * IMAGE_TOKEN_ESTIMATE };
  }
}

/**
 * `ping` events while the next event keeps the client waiting (a long silence before a reasoning
 * model answers), only once the stream started: before the first event a failure is still an
 * ordinary HTTP error. Stopping the iteration stops the source (which aborts the upstream).
 */
export async function* withPings(
  source: AsyncIterable<SseEvent>,
  intervalMs: number,
): AsyncGenerator<SseEvent, void, undefined> {
  const it = source[Symbol.asyncIterator]();
  let started = false;
  try {
    let next = settled(it.next());
    for (;;) {
      let timer: NodeJS.Timeout | undefined;
      const tick = new Promise<'ping'>((resolve) => {
        if (started) timer = setTimeout(() => resolve('ping'), intervalMs);
      });
      const r = await Promise.race([next, tick]).finally(() => clearTimeout(timer));
      if (r === 'ping') {
        yield { event: 'ping', data: { type: 'ping' } };
        continue;
      }
      if (r.done) return;
      started = true;
      next = settled(it.next());
      yield r.value;
    }
  } finally {
    await it.return?.();
  }
}

/** The same promise, marked as handled: a read left pending when the consumer stops must not surface as unhandled. */
function settled<T>(p: Promise<T>): Promise<T> {
  p.catch(() => undefined);
  return p;
}

/** The least max_tokens a capped call may be sent with: above the thinking budget when thinking is enabled. */
function thinkingFloor(body: Json): number | undefined {
  const thinking = body.thinking as Json | undefined;
  if (thinking?.type !== 'enabled' || typeof thinking.budget_tokens !== 'number') return undefined;
  return Math.max(MIN_CAPPED_OUTPUT_TOKENS, thinking.budget_tokens + 1);
}

/** The headers an Anthropic upstream gets from the client: anthropic-version and anthropic-beta, when sent. */
function forwarded(headers: AnthropicClientHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  if (headers['anthropic-version']) out['anthropic-version'] = headers['anthropic-version'];
  if (headers['anthropic-beta']) out['anthropic-beta'] = headers['anthropic-beta'];
  return out;
}

function eventType(data: string): string {
  try {
    const v = JSON.parse(data) as { type?: unknown };
    return typeof v.type === 'string' ? v.type : 'message';
  } catch {
    return 'message';
  }
}

/** message_delta with the gateway's `cost` member added (the upstream's bytes otherwise kept). */
function withCost(data: string, cost: CostRubDto): string {
  try {
    const v = JSON.parse(data) as Json;
    return JSON.stringify({ ...v, cost });
  } catch {
    throw new ApiError(502, 'upstream_error', 'Upstream sent an unreadable message_delta event.', 'upstream_error');
  }
}
