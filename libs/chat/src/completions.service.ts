import { Injectable } from '@nestjs/common';
import { ApiError, ErrorBody, errorBody, toApiError } from '@app/common';
import type { Caller } from '@app/auth';
import { contentText } from '@app/providers';
import type {
  CanonicalChatChunk,
  CanonicalChatResponse,
  CanonicalUsage,
  ChatMessage,
  ContentPart,
} from '@app/providers';
import { ChatService, PreparedChat } from './chat.service';
import { CostRubDto, costToRub } from './chat-cost';
import { completionParams, usesLegacyFunctions } from './completion-params';
import { ChatCompletionRequestDto } from './dto/chat-completions.dto';
import { ChatCompletionChunkDto, ChatCompletionResponseDto } from './dto/chat-completion-response.dto';
import { imageParts, normalizeCompletionMessages } from './messages';
import { AssembledContext, ChatContextService, withContext } from './context/chat-context.service';
import type { ChatTimings } from './rest-chat.service';
import { EventStream } from './event-stream';
import { FileUrlResolver, ResolvedFileUrls } from './context/file-urls';

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
export type CompletionsStreamEvent = { data: ChatCompletionChunkDto } | { data: '[DONE]' } | { data: ErrorBody };

export interface PreparedCompletion {
  prep: PreparedChat;
  ctx: AssembledContext | null;
  /** the request used the deprecated functions / function_call: the answer uses function_call too */
  legacyFunctions?: boolean;
}

/** POST /v1/chat/completions: OpenAI wire format in and out, with an extra `cost` object (and `sources`/`context` with a context). */
@Injectable()
export class CompletionsService {
  constructor(
    private readonly chat: ChatService,
    private readonly context: ChatContextService,
    private readonly files: FileUrlResolver,
  ) {}

  async prepare(
    caller: Caller,
    dto: ChatCompletionRequestDto,
    requestId: string,
    timings: ChatTimings = {},
  ): Promise<PreparedCompletion> {
    const given = normalizeCompletionMessages(dto.messages);
    const params = completionParams(dto);
    const fallbacks = dto.fallbacks;
    // file_urls as on /api/v1/chat: the model is checked before anything is fetched; images join
    // the last user message, PDF text joins the context
    let files: ResolvedFileUrls = { images: [], pdfs: [] };
    if (dto.file_urls?.length) {
      this.chat.check({ caller, modelKey: dto.model, fallbacks, messages: given, params, imageParam: 'messages' });
      files = await this.files.resolve(dto.file_urls);
    }
    const messages = withFileImages(given, files.images);
    const checked = this.chat.check({
      caller,
      modelKey: dto.model,
      fallbacks,
      messages,
      params,
      imageParam: files.images.length ? 'file_urls' : 'messages',
    });
    const { model } = checked;
    const promptTokens = this.chat.countPrompt(messages, params);
    // the context is sized for the requested model (a fallback that cannot take it is left out)
    const ctx = await this.context.assemble({
      caller,
      requestId,
      endpoint: ENDPOINT,
      model,
      projectId: dto.project_id ?? undefined,
      knowledgeBaseId: dto.knowledge_base_id ?? undefined,
      mode: dto.mode ?? undefined,
      pdfs: files.pdfs,
      query: lastUserText(messages),
      promptTokens,
      maxOutputTokens: Math.min(params.max_tokens ?? model.max_output_tokens, model.max_output_tokens),
      requestImages: imageParts(messages).length,
      openHold: (bound) =>
        this.chat.openRequestHold(
          {
            caller,
            requestId,
            endpoint: ENDPOINT,
            modelKey: dto.model,
            fallbacks,
            messages,
            params,
            imageParam: 'messages',
          },
          bound,
        ),
    });
    if (ctx) Object.assign(timings, { contextMs: ctx.elapsedMs, searchMs: ctx.searchMs, rerankMs: ctx.rerankMs });
    const sent = withContext(messages, ctx);
    const prep = await this.chat.prepare({
      caller,
      requestId,
      endpoint: ENDPOINT,
      modelKey: dto.model,
      fallbacks,
      messages: sent,
      params,
      imageParam: files.images.length ? 'file_urls' : 'messages',
      within: ctx?.hold,
      // no context added: the messages counted and checked above are the ones sent
      promptTokens: sent === messages ? promptTokens : undefined,
      checked: sent === messages ? checked : undefined,
    });
    return { prep, ctx, legacyFunctions: usesLegacyFunctions(dto) };
  }

  async complete(
    { prep, ctx, legacyFunctions }: PreparedCompletion,
    signal: AbortSignal,
  ): Promise<{ body: ChatCompletionResponseDto; cost: CostRubDto; servedModel: string }> {
    const out = await this.chat.complete(prep, signal);
    const cost = costToRub(out.cost, out.chargedMicro, ctx?.retrievalMicro);
    return {
      body: {
        ...toOpenAiResponse(out.response, legacyFunctions === true),
        usage: toOpenAiUsage(out.usage),
        cost,
        ...contextFields(ctx),
      },
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
    { prep, ctx, legacyFunctions }: PreparedCompletion,
    signal: AbortSignal,
    includeUsage: boolean,
  ): EventStream<CompletionsStreamEvent> {
    const headers: Record<string, string> = {};
    return { headers, events: this.events(prep, ctx, signal, includeUsage, headers, legacyFunctions === true) };
  }

  private events(
    prep: PreparedChat,
    ctx: AssembledContext | null,
    signal: AbortSignal,
    includeUsage: boolean,
    headers: Record<string, string>,
    legacy: boolean,
  ): AsyncGenerator<CompletionsStreamEvent, void, undefined> {
    return this.chat.relay<CompletionsStreamEvent>(prep, signal, {
      *chunk(chunk) {
        headers['x-gateway-model'] = chunk.model;
        // relayed chunks carry no usage (the chat service keeps it for the charge); with include_usage
        // every chunk says usage: null until the usage chunk
        const { usage: _kept, ...fields } = legacy ? legacyChunk(chunk) : (chunk as ChatCompletionChunkDto);
        yield { data: includeUsage ? { ...fields, usage: null } : fields };
      },
      *error(err) {
        yield { data: errorBody(toApiError(err).error) };
      },
      *end(out) {
        headers['x-gateway-model'] ??= out.servedModel.key;
        const head: ChatCompletionChunkDto = {
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

function contextFields(ctx: AssembledContext | null): Pick<ChatCompletionResponseDto, 'sources' | 'context'> {
  return ctx ? { sources: ctx.sources, context: ctx.info } : {};
}

/** Images from file_urls, appended to the last user message as image_url parts. */
function withFileImages(messages: ChatMessage[], images: string[]): ChatMessage[] {
  if (images.length === 0) return messages;
  const at = messages.map((m) => m.role).lastIndexOf('user');
  if (at < 0) throw ApiError.badRequest('file_urls needs a user message to attach the images to.', 'file_urls');
  const m = messages[at];
  const text: ContentPart[] =
    typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : [...(m.content ?? [])];
  const parts = [...text, ...images.map((url): ContentPart => ({ type: 'image_url', image_url: { url } }))];
  return messages.map((x, i) => (i === at ? { ...x, content: parts } : x));
}

/** The search query of an OpenAI request: the text of the last user message. */
/** The question a context is searched for: the last user message's text. */
export function lastUserText(messages: ChatMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--)
    if (messages[i].role === 'user') return contentText(messages[i].content);
  return '';
}

/**
 * With the deprecated functions, the (single) call is `message.function_call` and the finish
 * reason `function_call`, as OpenAI answers such requests.
 */
function toOpenAiResponse(
  r: CanonicalChatResponse,
  legacy = false,
): Omit<ChatCompletionResponseDto, 'usage' | 'cost' | 'sources' | 'context'> {
  return {
    id: r.id,
    object: 'chat.completion',
    created: r.created,
    model: r.model,
    choices: r.choices.map((c) => {
      const calls = c.message.tool_calls ?? [];
      const call = legacy && calls.length ? { function_call: { ...calls[0].function } } : {};
      return {
        index: c.index,
        message: {
          role: 'assistant',
          content: c.message.content,
          refusal: c.message.refusal ?? null,
          ...(!legacy && calls.length ? { tool_calls: calls } : {}),
          ...call,
          ...(c.message.reasoning_content ? { reasoning_content: c.message.reasoning_content } : {}),
        },
        logprobs: (c.logprobs ?? null) as Record<string, unknown> | null,
        finish_reason: legacy && c.finish_reason === 'tool_calls' ? 'function_call' : c.finish_reason,
      };
    }),
  };
}

/** A stream chunk for a functions request: tool-call deltas of the first call as `delta.function_call`. */
function legacyChunk(chunk: CanonicalChatChunk): ChatCompletionChunkDto {
  return <ChatCompletionChunkDto>{
    ...chunk,
    choices: chunk.choices.map((c) => {
      const { tool_calls: calls, ...delta } = c.delta;
      const first = (calls ?? []).filter((t) => t.index === 0);
      const fn = first.length
        ? {
            function_call: {
              ...(first[0].function?.name ? { name: first[0].function.name } : {}),
              arguments: first.map((t) => t.function?.arguments ?? '').join(''),
            },
          }
        : {};
      return {
        ...c,
        delta: { ...delta, ...fn },
        finish_reason: c.finish_reason === 'tool_calls' ? 'function_call' : c.finish_reason,
      };
    }),
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
