import { Injectable } from '@nestjs/common';
import { ErrorBody, errorBody, toApiError } from '@app/common';
import type { Caller } from '@app/auth';
import { contentText } from '@app/providers';
import type { CanonicalChatResponse, CanonicalUsage, ChatMessage } from '@app/providers';
import { ChatService, PreparedChat } from './chat.service';
import { CostRubDto, costToRub } from './chat-cost';
import { completionParams } from './completion-params';
import { ChatCompletionRequestDto } from './dto/chat-completions.dto';
import { imageParts, normalizeCompletionMessages } from './messages';
import { AssembledContext, ChatContextService, withContext } from './context/chat-context.service';
import type { ChatTimings } from './rest-chat.service';
import { EventStream } from './event-stream';

const ENDPOINT = '/v1/chat/completions';

export interface OpenAiUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number };
  completion_tokens_details: { reasoning_tokens: number };
}

/**
 * The /v1/chat/completions stream, OpenAI style (unnamed `data:` lines): `chat.completion.chunk`
 * objects, the final usage / context chunk, `[DONE]` — or, after a failure mid-stream, one
 * `{"error": …}` line instead of the rest.
 */
export type CompletionsStreamEvent = { data: Record<string, unknown> } | { data: '[DONE]' } | { data: ErrorBody };

export interface PreparedCompletion {
  prep: PreparedChat;
  ctx: AssembledContext | null;
}

/** POST /v1/chat/completions: OpenAI wire format in and out, with an extra `cost` object (and `sources`/`context` with a context). */
@Injectable()
export class CompletionsService {
  constructor(
    private readonly chat: ChatService,
    private readonly context: ChatContextService,
  ) {}

  async prepare(
    caller: Caller,
    dto: ChatCompletionRequestDto,
    requestId: string,
    timings: ChatTimings = {},
  ): Promise<PreparedCompletion> {
    const messages = normalizeCompletionMessages(dto.messages);
    const params = completionParams(dto);
    const fallbacks = dto.fallbacks;
    const { model } = this.chat.check({
      caller,
      modelKey: dto.model,
      fallbacks,
      messages,
      params,
      imageParam: 'messages',
    });
    // the context is sized for the requested model (a fallback that cannot take it is left out)
    const ctx = await this.context.assemble({
      caller,
      requestId,
      endpoint: ENDPOINT,
      model,
      projectId: dto.project_id ?? undefined,
      knowledgeBaseId: dto.knowledge_base_id ?? undefined,
      mode: dto.mode ?? undefined,
      pdfs: [],
      query: lastUserText(messages),
      promptTokens: this.chat.countPrompt(messages, params),
      maxOutputTokens: Math.min(params.max_tokens ?? model.max_output_tokens, model.max_output_tokens),
      requestImages: imageParts(messages).length,
    });
    if (ctx) Object.assign(timings, { contextMs: ctx.elapsedMs, searchMs: ctx.searchMs, rerankMs: ctx.rerankMs });
    const prep = await this.chat.prepare({
      caller,
      requestId,
      endpoint: ENDPOINT,
      modelKey: dto.model,
      fallbacks,
      messages: withContext(messages, ctx),
      params,
      imageParam: 'messages',
    });
    return { prep, ctx };
  }

  async complete(
    { prep, ctx }: PreparedCompletion,
    signal: AbortSignal,
  ): Promise<{ body: Record<string, unknown>; cost: CostRubDto; servedModel: string }> {
    const out = await this.chat.complete(prep, signal);
    const cost = costToRub(out.cost, out.chargedMicro, ctx?.retrievalMicro);
    return {
      body: { ...toOpenAiResponse(out.response), usage: toOpenAiUsage(out.usage), cost, ...contextFields(ctx) },
      cost,
      servedModel: out.servedModel.key,
    };
  }

  /**
   * The stream as events: chunks as `data:` lines, then (with include_usage) a usage chunk with
   * choices: [], then [DONE]. With a context, `sources` and `context` ride on the usage chunk, or
   * without include_usage on an extra last chunk with choices: []. `x-gateway-model` (the served
   * model) is set before the first event.
   */
  stream(
    { prep, ctx }: PreparedCompletion,
    signal: AbortSignal,
    includeUsage: boolean,
  ): EventStream<CompletionsStreamEvent> {
    const headers: Record<string, string> = {};
    return { headers, events: this.events(prep, ctx, signal, includeUsage, headers) };
  }

  private events(
    prep: PreparedChat,
    ctx: AssembledContext | null,
    signal: AbortSignal,
    includeUsage: boolean,
    headers: Record<string, string>,
  ): AsyncGenerator<CompletionsStreamEvent, void, undefined> {
    return this.chat.relay<CompletionsStreamEvent>(prep, signal, {
      *chunk(chunk) {
        headers['x-gateway-model'] = chunk.model;
        yield { data: includeUsage ? { ...chunk, usage: null } : { ...chunk } };
      },
      *error(err) {
        yield { data: errorBody(toApiError(err).error) };
      },
      *end(out) {
        headers['x-gateway-model'] ??= out.servedModel.key;
        const head = {
          id: out.response.id,
          object: 'chat.completion.chunk',
          created: out.response.created,
          model: out.response.model,
          choices: [],
        };
        if (includeUsage) {
          yield {
            data: {
              ...head,
              usage: toOpenAiUsage(out.usage),
              cost: costToRub(out.cost, out.chargedMicro, ctx?.retrievalMicro),
              ...contextFields(ctx),
            },
          };
        } else if (ctx) {
          yield { data: { ...head, ...contextFields(ctx) } };
        }
        yield { data: '[DONE]' };
      },
    });
  }
}

function contextFields(ctx: AssembledContext | null): Record<string, unknown> {
  return ctx ? { sources: ctx.sources, context: ctx.info } : {};
}

/** The search query of an OpenAI request: the text of the last user message. */
function lastUserText(messages: ChatMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--)
    if (messages[i].role === 'user') return contentText(messages[i].content);
  return '';
}

function toOpenAiResponse(r: CanonicalChatResponse): Record<string, unknown> {
  return {
    id: r.id,
    object: 'chat.completion',
    created: r.created,
    model: r.model,
    choices: r.choices.map((c) => ({
      index: c.index,
      message: {
        role: 'assistant',
        content: c.message.content,
        refusal: c.message.refusal ?? null,
        ...(c.message.tool_calls?.length ? { tool_calls: c.message.tool_calls } : {}),
        ...(c.message.reasoning_content ? { reasoning_content: c.message.reasoning_content } : {}),
      },
      logprobs: null,
      finish_reason: c.finish_reason,
    })),
    system_fingerprint: null,
  };
}

export function toOpenAiUsage(u: CanonicalUsage): OpenAiUsage {
  return {
    prompt_tokens: u.prompt_tokens,
    completion_tokens: u.completion_tokens,
    total_tokens: u.prompt_tokens + u.completion_tokens,
    prompt_tokens_details: { cached_tokens: u.cache_read_tokens },
    completion_tokens_details: { reasoning_tokens: u.reasoning_tokens ?? 0 },
  };
}
