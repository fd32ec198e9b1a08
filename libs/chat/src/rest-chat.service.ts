import { Injectable } from '@nestjs/common';
import { ApiError, ErrorBody, errorBody, toApiError } from '@app/common';
import type { Caller } from '@app/auth';
import { ChatOutcome, ChatParams, ChatService, PreparedChat, StreamOutcome } from './chat.service';
import { costToRub } from './chat-cost';
import { AssembledContext, ChatContextService, withContext } from './context/chat-context.service';
import { FileUrlResolver, ResolvedFileUrls } from './context/file-urls';
import { ChatRequestDto } from './dto/chat-request.dto';
import { ChatResponseDto } from './dto/chat-response.dto';
import { buildRestMessages, extractJsonDocument } from './messages';
import { EventStream } from './event-stream';

const ENDPOINT = '/api/v1/chat';

/** Server timings a controller may put in a Server-Timing header. */
export interface ChatTimings {
  contextMs?: number;
  searchMs?: number;
  rerankMs?: number;
}

/** `Server-Timing: context;dur=<ms>, context-search;dur=…, context-rerank;dur=…` — server time added before the upstream call. */
export function serverTiming(t: ChatTimings): string {
  const ms = (v: number | undefined) => (v ?? 0).toFixed(1);
  return `context;dur=${ms(t.contextMs)};desc="context assembly", context-search;dur=${ms(t.searchMs)}, context-rerank;dur=${ms(t.rerankMs)}`;
}

/** The /api/v1/chat stream: `reasoning` and `delta` pieces, then `done` with the full answer — or `error` instead of the rest. */
export type RestChatStreamEvent =
  | { event: 'reasoning'; data: { reasoning: string } }
  | { event: 'delta'; data: { text: string } }
  | { event: 'done'; data: ChatResponseDto }
  | { event: 'error'; data: ErrorBody };

interface RestPrepared {
  prep: PreparedChat;
  ctx: AssembledContext | null;
}

/** POST /api/v1/chat: REST request → context (project, knowledge base, PDFs) → chat pipeline → REST response. */
@Injectable()
export class RestChatService {
  constructor(
    private readonly chat: ChatService,
    private readonly context: ChatContextService,
    private readonly files: FileUrlResolver,
  ) {}

  async complete(
    caller: Caller,
    body: ChatRequestDto,
    requestId: string,
    signal: AbortSignal,
    timings: ChatTimings = {},
  ): Promise<ChatResponseDto> {
    const { prep, ctx } = await this.prepare(caller, body, requestId, timings);
    let jsonText: string | null = null;
    const out = await this.chat.complete(prep, signal, (r, model) => {
      if (!body.response_format_json) return;
      jsonText = extractJsonDocument(r.choices[0]?.message.content ?? '');
      if (jsonText === null)
        throw ApiError.badGateway(
          `${model.key} did not return a valid JSON document; nothing was charged.`,
          'upstream_invalid_json',
        );
    });
    const msg = out.response.choices[0]?.message;
    return this.toDto(out, ctx, jsonText ?? msg?.content ?? '', msg?.reasoning_content ?? '');
  }

  /**
   * Prepares the call (errors here are plain HTTP errors), then returns its events; `x-gateway-model`
   * (the served model) is set before the first event.
   */
  async stream(
    caller: Caller,
    body: ChatRequestDto,
    requestId: string,
    signal: AbortSignal,
  ): Promise<EventStream<RestChatStreamEvent>> {
    const { prep, ctx } = await this.prepare(caller, body, requestId, {});
    const headers: Record<string, string> = {};
    return { headers, events: this.events(prep, ctx, signal, headers) };
  }

  private events(
    prep: PreparedChat,
    ctx: AssembledContext | null,
    signal: AbortSignal,
    headers: Record<string, string>,
  ): AsyncGenerator<RestChatStreamEvent, void, undefined> {
    const toDto = (out: StreamOutcome) => this.toDto(out, ctx, out.text, out.reasoning);
    return this.chat.relay<RestChatStreamEvent>(prep, signal, {
      *chunk(chunk) {
        headers['x-gateway-model'] = chunk.model;
        const d = chunk.choices[0]?.delta;
        if (d?.reasoning_content) yield { event: 'reasoning', data: { reasoning: d.reasoning_content } };
        if (d?.content) yield { event: 'delta', data: { text: d.content } };
      },
      *error(err) {
        yield { event: 'error', data: errorBody(toApiError(err).error) };
      },
      *end(out) {
        headers['x-gateway-model'] ??= out.servedModel.key;
        yield { event: 'done', data: toDto(out) };
      },
    });
  }

  private async prepare(
    caller: Caller,
    body: ChatRequestDto,
    requestId: string,
    timings: ChatTimings,
  ): Promise<RestPrepared> {
    const params: ChatParams = {
      user: body.user_id,
      max_tokens: body.max_tokens,
      temperature: body.temperature,
      response_format: body.response_format_json ? { type: 'json_object' } : undefined,
    };
    const fallbacks = body.fallbacks;
    let files: ResolvedFileUrls = { images: [], pdfs: [] };
    if (body.file_urls?.length) {
      this.chat.check({ caller, modelKey: body.model, fallbacks, messages: [], params, imageParam: 'file_urls' }); // before anything is fetched
      files = await this.files.resolve(body.file_urls);
    }
    const base = buildRestMessages({
      prompt: body.prompt,
      system_prompt: body.system_prompt,
      messages: body.messages,
      images: files.images,
      json: body.response_format_json === true,
    });
    const checked = this.chat.check({
      caller,
      modelKey: body.model,
      fallbacks,
      messages: base,
      params,
      imageParam: 'file_urls',
    });
    const { model } = checked;
    const promptTokens = this.chat.countPrompt(base, params);
    // the context is sized for the requested model (a fallback that cannot take it is left out)
    const ctx = await this.context.assemble({
      caller,
      requestId,
      endpoint: ENDPOINT,
      model,
      projectId: body.project_id ?? undefined,
      knowledgeBaseId: body.knowledge_base_id ?? undefined,
      mode: body.mode ?? undefined,
      pdfs: files.pdfs,
      query: body.prompt,
      promptTokens,
      maxOutputTokens: Math.min(body.max_tokens ?? model.max_output_tokens, model.max_output_tokens),
      requestImages: files.images.length,
      openHold: (bound) =>
        this.chat.openRequestHold(
          {
            caller,
            requestId,
            endpoint: ENDPOINT,
            modelKey: body.model,
            fallbacks,
            messages: base,
            params,
            imageParam: 'file_urls',
          },
          bound,
        ),
    });
    if (ctx) Object.assign(timings, { contextMs: ctx.elapsedMs, searchMs: ctx.searchMs, rerankMs: ctx.rerankMs });
    const messages = withContext(base, ctx);
    const prep = await this.chat.prepare({
      caller,
      requestId,
      endpoint: ENDPOINT,
      modelKey: body.model,
      fallbacks,
      messages,
      params,
      imageParam: 'file_urls',
      within: ctx?.hold,
      // no context added: the messages counted and checked above are the ones sent
      promptTokens: messages === base ? promptTokens : undefined,
      checked: messages === base ? checked : undefined,
    });
    return { prep, ctx };
  }

  private toDto(out: ChatOutcome, ctx: AssembledContext | null, text: string, reasoning: string): ChatResponseDto {
    const served = out.servedModel;
    const cacheAware =
      served.pricing.cache_read_rub_per_1m !== null ||
      served.pricing.cache_write_rub_per_1m !== null ||
      out.usage.cache_read_tokens + out.usage.cache_write_tokens > 0;
    return {
      response: { text, reasoning: reasoning === '' ? null : reasoning },
      usage: {
        prompt_tokens: out.usage.prompt_tokens,
        completion_tokens: out.usage.completion_tokens,
        total_tokens: out.usage.prompt_tokens + out.usage.completion_tokens,
        cache_read_tokens: cacheAware ? out.usage.cache_read_tokens : null,
        cache_write_tokens: cacheAware ? out.usage.cache_write_tokens : null,
      },
      cost: costToRub(out.cost, out.chargedMicro, ctx?.retrievalMicro),
      model: { model: served.key, context_window: served.context_window, supports_images: served.supports_images },
      has_reasoning: reasoning !== '',
      ...(ctx ? { sources: ctx.sources, context: ctx.info } : {}),
    };
  }
}
