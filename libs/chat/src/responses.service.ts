import { Injectable, Logger } from '@nestjs/common';
import { ApiError, Clock, errorBody, toApiError } from '@app/common';
import type { Caller } from '@app/auth';
import type { ChatMessage, ToolCall, ToolDefinition } from '@app/providers';
import { ChatCallInput, ChatService, StreamOutcome } from './chat.service';
import { imageParts } from './messages';
import { CostRubDto, costToRub } from './chat-cost';
import type { ResponseCreateRequestDto, ResponseObjectDto } from './dto/responses.dto';
import {
  responseInputItems,
  responsesControlParam,
  responsesFileSearch,
  responsesMessages,
  responsesParams,
  ResponsesFileSearch,
} from './responses-input';
import { AssembledContext, ChatContextService, withContext } from './context/chat-context.service';
import { lastUserText } from './completions.service';
import {
  echoFileSearchTool,
  FILE_SEARCH_RESULTS_INCLUDE,
  fileCitations,
  fileSearchRequest,
  fileSearchRun,
} from './responses-file-search';
import { ResponsesRepository } from './responses.repository';
import type { EventStream } from './event-stream';
import { McpToolLoop } from './responses-mcp-loop';
import { responsesMcpTools, splitMcpInput } from './responses-mcp';
import { mcpComplete, mcpEvents } from './responses-mcp-response';
import {
  assistantTurn,
  hexId,
  logprobsOf,
  OutputItem,
  outputText,
  PreparedResponse,
  responseObject,
  ResponsesStreamEvent,
  toResponsesUsage,
} from './responses-output';
import { ResponseEventStream } from './responses-events';

export * from './responses-output';
export * from './responses-events';

const ENDPOINT = '/v1/responses';

/** How long a stored response (store: true, the default) is kept: 30 days, as OpenAI keeps them. */
export const RESPONSE_RETENTION_MS = 30 * 86_400_000;

/**
 * POST /v1/responses (OpenAI Responses API, text and function tools) on the shared chat pipeline:
 * the input becomes a canonical chat request, ChatService does model checks, the reservation, the
 * provider call and the exact charge, and this service maps the result to `response` objects and
 * the Responses event stream. Answers are stored per team (store, default true) for
 * RESPONSE_RETENTION_MS: GET, DELETE, input_items, and previous_response_id to continue them.
 */
@Injectable()
export class ResponsesService {
  private readonly log = new Logger(ResponsesService.name);

  constructor(
    private readonly chat: ChatService,
    private readonly repo: ResponsesRepository,
    private readonly clock: Clock,
    private readonly context: ChatContextService,
    private readonly mcpLoop: McpToolLoop,
  ) {}

  async prepare(caller: Caller, dto: ResponseCreateRequestDto, requestId: string): Promise<PreparedResponse> {
    const mcpTools = responsesMcpTools(dto.tools);
    const split = splitMcpInput(dto.input);
    // an input of approval answers only continues the previous response
    const onlyAnswers = split.approvals.length > 0 && (split.input as unknown[]).length === 0;
    const input = onlyAnswers ? [] : responsesMessages({ input: split.input });
    const params = responsesParams(dto);
    const inputItems = responseInputItems(dto.input);
    if (split.approvals.length > 0 && !dto.previous_response_id)
      throw ApiError.badRequest(
        'mcp_approval_response items answer a previous response: previous_response_id is required.',
        'previous_response_id',
      );
    // previous_response_id continues a stored conversation of the team (its instructions are not
    // carried over, as in OpenAI's API); an unknown, deleted or expired id is a 404 before any charge
    let previous: ChatMessage[] = [];
    if (dto.previous_response_id) {
      const row = await this.repo.find(caller.teamId, dto.previous_response_id, this.clock.now());
      if (!row)
        throw ApiError.notFound(
          `No stored response ${dto.previous_response_id} (unknown, deleted, expired, or stored with store: false).`,
          'response_not_found',
          'previous_response_id',
        );
      previous = JSON.parse(row.conversation) as ChatMessage[];
    }
    // the servers are resolved (refusals are 400s before any call) and their tools offered as functions
    const mcp = mcpTools.length > 0 ? await this.mcpLoop.open(caller, mcpTools, requestId) : undefined;
    if (mcp && mcp.definitions.length > 0) params.tools = [...(params.tools ?? []), ...mcp.definitions];
    const answered = previous.length > 0 ? await this.mcpLoop.answerApprovals(mcp, previous, split.approvals) : [];
    const history = [...previous, ...answered, ...input];
    const instructions = dto.instructions ? [{ role: 'system' as const, content: dto.instructions }] : [];
    const messages: ChatMessage[] = [...instructions, ...history];
    const call: ChatCallInput = {
      caller,
      requestId,
      endpoint: ENDPOINT,
      modelKey: dto.model,
      fallbacks: dto.fallbacks ?? undefined,
      messages,
      params,
      imageParam: 'input',
      controlParam: responsesControlParam,
    };
    const tool = responsesFileSearch(dto.tools);
    const ctx = tool ? await this.searchFiles(call, tool).catch(rethrowRenamed) : null;
    const chat = await this.chat
      .prepare({ ...call, messages: withContext(messages, ctx), within: ctx?.hold })
      .catch(rethrowRenamed);
    const query = lastUserText(history);
    return {
      chat,
      mcp,
      fileSearch: tool ? fileSearchRun(ctx, query, (dto.include ?? []).includes(FILE_SEARCH_RESULTS_INCLUDE)) : null,
      retrievalMicro: ctx?.retrievalMicro,
      id: hexId('resp'),
      createdAt: Math.floor(this.clock.now() / 1000),
      teamId: caller.teamId,
      inputItems,
      history,
      echo: {
        instructions: dto.instructions ?? null,
        max_output_tokens: dto.max_output_tokens ?? null,
        temperature: dto.temperature ?? null,
        top_p: dto.top_p ?? null,
        tool_choice: dto.tool_choice ?? 'auto',
        tools: echoTools(
          params.tools?.filter((t) => !mcp?.names.has(t.function.name)),
          tool,
          mcpTools.map((m) => ({ index: m.index, echo: m.echo })),
        ),
        text: dto.text ?? { format: { type: 'text' } },
        parallel_tool_calls: dto.parallel_tool_calls ?? true,
        metadata: dto.metadata ?? {},
        user: dto.user ?? null,
        // OpenAI stores responses unless told not to
        store: dto.store ?? true,
        previous_response_id: dto.previous_response_id ?? null,
        effort: params.reasoning_effort ?? null,
        service_tier: params.service_tier && params.service_tier !== 'auto' ? params.service_tier : 'default',
      },
    };
  }

  /**
   * The file_search tool: the model is checked first (nothing is charged for a request it refuses),
   * then the tool's vector stores are searched as a knowledge base is for chat (each store must be
   * the caller's; the query embeddings are charged as retrieval) and the hits become the context.
   */
  private async searchFiles(call: ChatCallInput, tool: ResponsesFileSearch): Promise<AssembledContext | null> {
    const { model } = this.chat.check(call);
    const max = call.params.max_tokens;
    return this.context.assemble({
      caller: call.caller,
      requestId: call.requestId,
      endpoint: ENDPOINT,
      model,
      fileSearch: fileSearchRequest(tool),
      pdfs: [],
      query: lastUserText(call.messages),
      promptTokens: this.chat.countPrompt(call.messages, call.params),
      maxOutputTokens: Math.min(max ?? model.max_output_tokens, model.max_output_tokens),
      requestImages: imageParts(call.messages).length,
      openHold: (bound) => this.chat.openRequestHold(call, bound),
    });
  }

  /** GET /v1/responses/{id}: the stored response object of the team. */
  async retrieve(caller: Caller, id: string): Promise<Record<string, unknown>> {
    const row = await this.repo.find(caller.teamId, id, this.clock.now());
    if (!row) throw notFound(id);
    return JSON.parse(row.body) as Record<string, unknown>;
  }

  /** DELETE /v1/responses/{id}. */
  async remove(caller: Caller, id: string): Promise<{ id: string; object: 'response'; deleted: true }> {
    if (!(await this.repo.delete(caller.teamId, id, this.clock.now()))) throw notFound(id);
    return { id, object: 'response', deleted: true };
  }

  /** GET /v1/responses/{id}/input_items: a cursor page of the stored input items. */
  async inputItems(
    caller: Caller,
    id: string,
    q: { after?: string; limit?: number; order?: 'asc' | 'desc' },
  ): Promise<Record<string, unknown>> {
    const row = await this.repo.find(caller.teamId, id, this.clock.now());
    if (!row) throw notFound(id);
    let items = JSON.parse(row.inputItems) as { id: string }[];
    if ((q.order ?? 'desc') === 'desc') items = items.reverse();
    if (q.after !== undefined) {
      const at = items.findIndex((i) => i.id === q.after);
      if (at < 0) throw ApiError.badRequest(`after: no input item ${q.after} in ${id}.`, 'after', 'invalid_value');
      items = items.slice(at + 1);
    }
    const limit = q.limit ?? 20;
    const data = items.slice(0, limit);
    return {
      object: 'list',
      data,
      first_id: data[0]?.id ?? null,
      last_id: data[data.length - 1]?.id ?? null,
      has_more: items.length > limit,
    };
  }

  /**
   * Keeps an answered response (store: true) for RESPONSE_RETENTION_MS. The answer is already
   * delivered and charged, so a failure to store is logged, not turned into an error.
   */
  async save(
    prep: PreparedResponse,
    body: Record<string, unknown>,
    output: OutputItem[],
    tail: ChatMessage[] = [],
  ): Promise<void> {
    if (!prep.echo.store) return;
    const now = this.clock.now();
    try {
      await this.repo.purgeExpired(now);
      await this.repo.insert({
        id: prep.id,
        teamId: prep.teamId,
        createdAt: now,
        expiresAt: now + RESPONSE_RETENTION_MS,
        body: JSON.stringify(body),
        inputItems: JSON.stringify(prep.inputItems),
        conversation: JSON.stringify(
          // a response that ends asking for approval ends with the tool calls awaiting it
          tail.length > 0 && !output.some((o) => o.type === 'message' || o.type === 'function_call')
            ? [...prep.history, ...tail]
            : [...prep.history, ...tail, assistantTurn(output)],
        ),
      });
    } catch (err) {
      this.log.error(`could not store response ${prep.id}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  async complete(
    prep: PreparedResponse,
    signal: AbortSignal,
  ): Promise<{ body: ResponseObjectDto; cost: CostRubDto; servedModel: string }> {
    if (prep.mcp) return mcpComplete(this.mcpLoop, prep, prep.mcp, signal, this.save.bind(this));
    const out = await this.chat.complete(prep.chat, signal);
    const choice = out.response.choices[0];
    const incomplete = choice?.finish_reason === 'length';
    const output: OutputItem[] = prep.fileSearch ? [prep.fileSearch.item] : [];
    const text = choice?.message.content ?? '';
    const calls: ToolCall[] = choice?.message.tool_calls ?? [];
    if (text !== '' || calls.length === 0)
      output.push({
        id: hexId('msg'),
        type: 'message',
        status: incomplete ? 'incomplete' : 'completed',
        role: 'assistant',
        content: [outputText(text, logprobsOf(choice), fileCitations(text, prep.fileSearch))],
      });
    for (const c of calls)
      output.push({
        id: hexId('fc'),
        type: 'function_call',
        status: 'completed',
        call_id: c.id,
        name: c.function.name,
        arguments: c.function.arguments,
      });
    const cost = costToRub(out.cost, out.chargedMicro, prep.retrievalMicro);
    const servedModel = out.servedModel.key;
    const body = {
      ...responseObject(
        prep,
        servedModel,
        incomplete ? 'incomplete' : 'completed',
        output,
        toResponsesUsage(out.usage),
      ),
      cost,
    };
    await this.save(prep, body, output);
    return { body, cost, servedModel };
  }

  /**
   * The Responses event sequence; the final response.completed carries usage and cost. Errors
   * before the first event propagate (a plain HTTP error); after it, they end the stream in-band
   * with `error` + `response.failed`. `x-gateway-model` (the served model) is set before the first event.
   */
  stream(prep: PreparedResponse, signal: AbortSignal): EventStream<ResponsesStreamEvent> {
    const headers: Record<string, string> = {};
    if (prep.mcp)
      return { headers, events: mcpEvents(this.mcpLoop, prep, prep.mcp, signal, headers, this.save.bind(this)) };
    return { headers, events: this.events(prep, signal, headers) };
  }

  private async *events(
    prep: PreparedResponse,
    signal: AbortSignal,
    headers: Record<string, string>,
  ): AsyncGenerator<ResponsesStreamEvent, void, undefined> {
    const events = new ResponseEventStream(prep);
    let out: StreamOutcome | null = null;
    try {
      for await (const e of this.chat.events(prep.chat, signal)) {
        if (e.type === 'end') {
          out = e.outcome;
          break;
        }
        const batch = events.chunk(e.chunk);
        headers['x-gateway-model'] = events.servedModel;
        yield* batch;
      }
    } catch (err) {
      if (!events.isStarted) throw err;
      yield* events.fail(errorBody(toApiError(err).error).error);
      return;
    }
    if (!out || out.aborted) return;
    const batch = events.finish(
      toResponsesUsage(out.usage),
      costToRub(out.cost, out.chargedMicro, prep.retrievalMicro),
      out.servedModel.key,
    );
    headers['x-gateway-model'] = events.servedModel;
    // stored before the last event, so a GET right after the stream finds it
    const final = batch[batch.length - 1].data.response as unknown as Record<string, unknown> & {
      output: OutputItem[];
    };
    await this.save(prep, final, final.output);
    yield* batch;
  }
}

/**
 * The tools as the response object names them (OpenAI's FunctionTool: name, description,
 * parameters and strict always present; strict is false unless the request asked for it).
 */
function echoTools(
  tools: ToolDefinition[] | undefined,
  fileSearch: ResponsesFileSearch | null,
  mcp: { index: number; echo: Record<string, unknown> }[] = [],
): unknown[] {
  const out: unknown[] = (tools ?? []).map((t) => ({
    type: 'function',
    name: t.function.name,
    description: t.function.description ?? null,
    parameters: t.function.parameters ?? null,
    strict: t.function.strict ?? false,
  }));
  // in the request's order
  const placed = [
    ...(fileSearch ? [{ index: fileSearch.index, echo: echoFileSearchTool(fileSearch) }] : []),
    ...mcp,
  ].sort((a, b) => a.index - b.index);
  for (const p of placed) out.splice(p.index, 0, p.echo);
  return out;
}

function rethrowRenamed(err: unknown): never {
  throw renameParam(err);
}

function notFound(id: string): ApiError {
  return ApiError.notFound(`No stored response ${id}.`, 'response_not_found', 'response_id');
}

/** The pipeline names chat-completions fields; a Responses client sent max_output_tokens and input. */
function renameParam(err: unknown): unknown {
  if (!(err instanceof ApiError)) return err;
  const param = err.param === 'max_tokens' ? 'max_output_tokens' : err.param === 'messages' ? 'input' : null;
  if (!param) return err;
  const message = err.message
    .replace(/^max_tokens\b/, 'max_output_tokens')
    .replace(/the messages use/, 'the input uses');
  return new ApiError(err.status, err.type, message, err.code, param, err.headers);
}
