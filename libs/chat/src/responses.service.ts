import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { ApiError, Clock, ErrorBody, errorBody, toApiError } from '@app/common';
import type { Caller } from '@app/auth';
import type {
  CanonicalChatChunk,
  CanonicalUsage,
  ChatMessage,
  FinishReason,
  ToolCall,
  ToolDefinition,
} from '@app/providers';
import { ChatCallInput, ChatService, PreparedChat, StreamOutcome } from './chat.service';
import { imageParts } from './messages';
import { CostRubDto, costToRub } from './chat-cost';
import type { ResponseCreateRequestDto, ResponseObjectDto, ResponseStreamEventDto } from './dto/responses.dto';
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
  FileCitation,
  fileCitations,
  FileSearchCallItem,
  fileSearchRequest,
  fileSearchRun,
  FileSearchRun,
} from './responses-file-search';
import { ResponsesRepository } from './responses.repository';
import type { EventStream } from './event-stream';
import { McpSession, McpToolLoop } from './responses-mcp-loop';
import { McpOutputItem, responsesMcpTools, splitMcpInput } from './responses-mcp';
import { mcpComplete, mcpEvents } from './responses-mcp-response';

const ENDPOINT = '/v1/responses';

/** How long a stored response (store: true, the default) is kept: 30 days, as OpenAI keeps them. */
export const RESPONSE_RETENTION_MS = 30 * 86_400_000;

export interface ResponsesUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number; cache_write_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

interface OutputText {
  type: 'output_text';
  text: string;
  annotations: FileCitation[];
  logprobs: unknown[];
}

export type OutputItem =
  | McpOutputItem
  | { id: string; type: 'message'; status: ItemStatus; role: 'assistant'; content: OutputText[] }
  | { id: string; type: 'function_call'; status: ItemStatus; call_id: string; name: string; arguments: string }
  | FileSearchCallItem;

type ItemStatus = 'in_progress' | 'completed' | 'incomplete';

/** The request echo carried by every `response` object (as the OpenAI API does). */
interface ResponseEcho {
  instructions: string | null;
  max_output_tokens: number | null;
  temperature: number | null;
  top_p: number | null;
  tool_choice: unknown;
  tools: unknown[];
  text: unknown;
  parallel_tool_calls: boolean;
  metadata: Record<string, string>;
  user: string | null;
  store: boolean;
  previous_response_id: string | null;
  effort: string | null;
  service_tier: string;
}

/** One Responses stream event: `event: <type>`, data `{type, sequence_number, …}`. */
export interface ResponsesStreamEvent {
  event: string;
  data: ResponseStreamEventDto;
}

export interface PreparedResponse {
  chat: PreparedChat;
  id: string;
  createdAt: number;
  echo: ResponseEcho;
  teamId: string;
  /** the input items as GET /v1/responses/{id}/input_items lists them */
  inputItems: Record<string, unknown>[];
  /** the conversation this answer continues: the previous response's, then this input (no instructions) */
  history: ChatMessage[];
  /** the file_search tool's search (run before the model answers), or null */
  fileSearch: FileSearchRun | null;
  /** what the file search charged (query embeddings, their own ledger entries), µRUB */
  retrievalMicro?: number;
  /** remote MCP tools: the servers resolved and listed, run in a loop with the model */
  mcp?: McpSession;
}

export function hexId(prefix: string): string {
  return `${prefix}_${randomUUID().replace(/-/g, '')}`;
}

/** `logprobs`: the chat answer's logprobs.content (same token entries), with top_logprobs. */
export function outputText(text: string, logprobs: unknown[] = [], annotations: FileCitation[] = []): OutputText {
  return { type: 'output_text', text, annotations, logprobs };
}

function logprobsOf(choice: { logprobs?: unknown } | undefined): unknown[] {
  const content = (choice?.logprobs as { content?: unknown } | undefined)?.content;
  return Array.isArray(content) ? content : [];
}

export function toResponsesUsage(u: CanonicalUsage): ResponsesUsage {
  return {
    input_tokens: u.prompt_tokens,
    input_tokens_details: { cached_tokens: u.cache_read_tokens, cache_write_tokens: u.cache_write_tokens },
    output_tokens: u.completion_tokens,
    output_tokens_details: { reasoning_tokens: u.reasoning_tokens ?? 0 },
    total_tokens: u.prompt_tokens + u.completion_tokens,
  };
}

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

/** The answer as the next turn of the conversation: its text and its function calls. */
export function assistantTurn(output: OutputItem[]): ChatMessage {
  const text = output
    .filter((o) => o.type === 'message')
    .flatMap((o) => o.content.map((c) => c.text))
    .join('');
  const calls: ToolCall[] = output
    .filter((o) => o.type === 'function_call')
    .map((o) => ({ id: o.call_id, type: 'function', function: { name: o.name, arguments: o.arguments } }));
  return {
    role: 'assistant',
    content: text === '' && calls.length ? null : text,
    ...(calls.length ? { tool_calls: calls } : {}),
  };
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

/**
 * `response.error.code` takes OpenAI's ResponseErrorCode values only: a rate limit (429, ours or the
 * upstream's) is rate_limit_exceeded; every other failure after the stream started is server_error.
 * The `error` event before it keeps the gateway's own code.
 */
export function responseErrorCode(error: ErrorBody['error']): 'rate_limit_exceeded' | 'server_error' {
  return error.type === 'rate_limit_error' || error.code === 'rate_limit_exceeded'
    ? 'rate_limit_exceeded'
    : 'server_error';
}

/** `model`: the catalog key of the model that serves (the requested one, or a fallback). */
export function responseObject(
  prep: PreparedResponse,
  model: string,
  status: 'in_progress' | 'completed' | 'incomplete' | 'failed',
  output: OutputItem[],
  usage: ResponsesUsage | null,
  error: unknown = null,
): Omit<ResponseObjectDto, 'cost'> {
  const e = prep.echo;
  return {
    id: prep.id,
    object: 'response',
    created_at: prep.createdAt,
    status,
    background: false,
    error,
    incomplete_details: status === 'incomplete' ? { reason: 'max_output_tokens' } : null,
    instructions: e.instructions,
    max_output_tokens: e.max_output_tokens,
    model,
    output,
    parallel_tool_calls: e.parallel_tool_calls,
    previous_response_id: e.previous_response_id,
    reasoning: { effort: e.effort, summary: null },
    service_tier: e.service_tier,
    store: e.store,
    temperature: e.temperature,
    text: e.text,
    tool_choice: e.tool_choice,
    tools: e.tools,
    top_p: e.top_p,
    truncation: 'disabled',
    // members without a value are left out: the schema has no null for usage (before the end) or user
    ...(usage ? { usage } : {}),
    ...(e.user !== null ? { user: e.user } : {}),
    metadata: e.metadata,
  };
}

interface OpenMessage {
  outputIndex: number;
  id: string;
  text: string;
  /** token log probabilities so far (with top_logprobs) */
  logprobs: unknown[];
}

interface OpenCall {
  outputIndex: number;
  id: string;
  callId: string;
  name: string;
  args: string;
}

/**
 * Canonical chat chunks → Responses events, each `event: <type>` with a `sequence_number`:
 * response.created, response.in_progress, then per output item output_item.added, (message)
 * content_part.added, output_text.delta…, output_text.done, content_part.done, (function call)
 * function_call_arguments.delta…, function_call_arguments.done, and output_item.done; finally
 * response.completed (response.incomplete when the output hit max_output_tokens).
 */
export class ResponseEventStream {
  private seq = 0;
  private started = false;
  private nextIndex = 0;
  private message: OpenMessage | null = null;
  private readonly calls = new Map<number, OpenCall>();
  private readonly items: { index: number; item: OutputItem }[] = [];
  private finishReason: FinishReason = null;
  /** the model that serves: the first chunk names it (a fallback may serve) */
  private model: string;

  /** events produced by the current call, handed back by it */
  private out: ResponsesStreamEvent[] = [];

  constructor(private readonly prep: PreparedResponse) {
    this.model = prep.chat.model.key;
  }

  get isStarted(): boolean {
    return this.started;
  }

  /** the catalog key of the model that serves (named in every `response` object) */
  get servedModel(): string {
    return this.model;
  }

  /** The events one chat chunk makes (response.created and response.in_progress first). */
  chunk(chunk: CanonicalChatChunk): ResponsesStreamEvent[] {
    if (!this.started) this.model = chunk.model;
    this.begin();
    const choice = chunk.choices.find((c) => c.index === 0);
    if (!choice) return this.take();
    const text = choice.delta.content ?? '';
    if (text !== '') {
      const m = this.openMessage();
      m.text += text;
      const logprobs = logprobsOf(choice);
      m.logprobs.push(...logprobs);
      this.emit('response.output_text.delta', {
        item_id: m.id,
        output_index: m.outputIndex,
        content_index: 0,
        delta: text,
        logprobs,
      });
    }
    for (const t of choice.delta.tool_calls ?? []) {
      let call = this.calls.get(t.index);
      if (!call) {
        this.closeMessage();
        call = {
          outputIndex: this.nextIndex++,
          id: hexId('fc'),
          callId: t.id ?? hexId('call'),
          name: t.function?.name ?? '',
          args: '',
        };
        this.calls.set(t.index, call);
        this.emit('response.output_item.added', {
          output_index: call.outputIndex,
          item: this.callItem(call, 'in_progress'),
        });
      }
      const delta = t.function?.arguments ?? '';
      if (delta !== '') {
        call.args += delta;
        this.emit('response.function_call_arguments.delta', {
          item_id: call.id,
          output_index: call.outputIndex,
          delta,
        });
      }
    }
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
    return this.take();
  }

  /** The closing events: open items done, then response.completed (or response.incomplete) with usage and cost. */
  finish(usage: ResponsesUsage, cost: CostRubDto, servedModel: string): ResponsesStreamEvent[] {
    if (!this.started) this.model = servedModel;
    this.begin();
    if (this.nextIndex === 0) this.openMessage(); // an empty answer is still one (empty) message
    this.closeMessage();
    for (const call of [...this.calls.values()].sort((a, b) => a.outputIndex - b.outputIndex)) {
      this.emit('response.function_call_arguments.done', {
        item_id: call.id,
        output_index: call.outputIndex,
        name: call.name,
        arguments: call.args,
      });
      const item = this.callItem(call, 'completed');
      this.items.push({ index: call.outputIndex, item });
      this.emit('response.output_item.done', { output_index: call.outputIndex, item });
    }
    this.calls.clear();
    const status = this.finishReason === 'length' ? 'incomplete' : 'completed';
    this.emit(`response.${status}`, {
      response: { ...responseObject(this.prep, this.model, status, this.output(), usage), cost },
    });
    return this.take();
  }

  /** An upstream failure after the stream started: `error`, then `response.failed`. */
  fail(error: ErrorBody['error']): ResponsesStreamEvent[] {
    this.begin();
    this.emit('error', { code: error.code, message: error.message, param: error.param });
    this.emit('response.failed', {
      response: responseObject(this.prep, this.model, 'failed', this.output(), null, {
        code: responseErrorCode(error),
        message: error.message,
      }),
    });
    return this.take();
  }

  private output(): OutputItem[] {
    return [...this.items].sort((a, b) => a.index - b.index).map((x) => x.item);
  }

  private take(): ResponsesStreamEvent[] {
    const events = this.out;
    this.out = [];
    return events;
  }

  private begin(): void {
    if (this.started) return;
    this.started = true;
    const snapshot = responseObject(this.prep, this.model, 'in_progress', [], null);
    this.emit('response.created', { response: snapshot });
    this.emit('response.in_progress', { response: snapshot });
    this.fileSearchEvents();
  }

  /** The file search ran before the model was called: its item is reported whole, first. */
  private fileSearchEvents(): void {
    const run = this.prep.fileSearch;
    if (!run) return;
    const index = this.nextIndex++;
    const at = { output_index: index, item_id: run.item.id };
    this.emit('response.output_item.added', {
      output_index: index,
      item: { ...run.item, status: 'in_progress', results: null },
    });
    this.emit('response.file_search_call.in_progress', at);
    this.emit('response.file_search_call.searching', at);
    this.emit('response.file_search_call.completed', at);
    this.items.push({ index, item: run.item });
    this.emit('response.output_item.done', { output_index: index, item: run.item });
  }

  private openMessage(): OpenMessage {
    if (this.message) return this.message;
    const m: OpenMessage = { outputIndex: this.nextIndex++, id: hexId('msg'), text: '', logprobs: [] };
    this.message = m;
    this.emit('response.output_item.added', {
      output_index: m.outputIndex,
      item: { id: m.id, type: 'message', status: 'in_progress', role: 'assistant', content: [] },
    });
    this.emit('response.content_part.added', {
      item_id: m.id,
      output_index: m.outputIndex,
      content_index: 0,
      part: outputText(''),
    });
    return m;
  }

  private closeMessage(): void {
    const m = this.message;
    if (!m) return;
    this.message = null;
    const annotations = fileCitations(m.text, this.prep.fileSearch);
    annotations.forEach((annotation, i) =>
      this.emit('response.output_text.annotation.added', {
        item_id: m.id,
        output_index: m.outputIndex,
        content_index: 0,
        annotation_index: i,
        annotation,
      }),
    );
    const part = outputText(m.text, m.logprobs, annotations);
    this.emit('response.output_text.done', {
      item_id: m.id,
      output_index: m.outputIndex,
      content_index: 0,
      text: m.text,
      logprobs: m.logprobs,
    });
    this.emit('response.content_part.done', { item_id: m.id, output_index: m.outputIndex, content_index: 0, part });
    const item: OutputItem = {
      id: m.id,
      type: 'message',
      status: this.finishReason === 'length' ? 'incomplete' : 'completed',
      role: 'assistant',
      content: [part],
    };
    this.items.push({ index: m.outputIndex, item });
    this.emit('response.output_item.done', { output_index: m.outputIndex, item });
  }

  private callItem(call: OpenCall, status: ItemStatus): OutputItem {
    return {
      id: call.id,
      type: 'function_call',
      status,
      call_id: call.callId,
      name: call.name,
      arguments: status === 'completed' ? call.args : '',
    };
  }

  private emit(type: string, payload: Omit<ResponseStreamEventDto, 'type' | 'sequence_number'>): void {
    this.out.push({ event: type, data: { type, sequence_number: this.seq++, ...payload } });
  }
}
