import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { ApiError, ErrorBody, errorBody, toApiError } from '@app/common';
import type { Caller } from '@app/auth';
import type { CanonicalChatChunk, CanonicalUsage, FinishReason, ToolCall, ToolDefinition } from '@app/providers';
import { ChatService, PreparedChat, StreamOutcome } from './chat.service';
import { CostRubDto, costToRub } from './chat-cost';
import type { ResponseCreateRequestDto } from './dto/responses.dto';
import { responsesMessages, responsesParams } from './responses-input';
import type { EventStream } from './event-stream';

const ENDPOINT = '/v1/responses';

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
  annotations: unknown[];
  logprobs: unknown[];
}

type OutputItem =
  | { id: string; type: 'message'; status: ItemStatus; role: 'assistant'; content: OutputText[] }
  | { id: string; type: 'function_call'; status: ItemStatus; call_id: string; name: string; arguments: string };

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
}

/** One Responses stream event: `event: <type>`, data `{type, sequence_number, …}`. */
export interface ResponsesStreamEvent {
  event: string;
  data: { type: string; sequence_number: number } & Record<string, unknown>;
}

export interface PreparedResponse {
  chat: PreparedChat;
  id: string;
  createdAt: number;
  echo: ResponseEcho;
}

function hexId(prefix: string): string {
  return `${prefix}_${randomUUID().replace(/-/g, '')}`;
}

function outputText(text: string): OutputText {
  return { type: 'output_text', text, annotations: [], logprobs: [] };
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
 * the Responses event stream. Nothing is stored (store: false; previous_response_id is refused).
 */
@Injectable()
export class ResponsesService {
  constructor(private readonly chat: ChatService) {}

  async prepare(caller: Caller, dto: ResponseCreateRequestDto, requestId: string): Promise<PreparedResponse> {
    const messages = responsesMessages(dto);
    const params = responsesParams(dto);
    const chat = await this.chat
      .prepare({
        caller,
        requestId,
        endpoint: ENDPOINT,
        modelKey: dto.model,
        fallbacks: dto.fallbacks ?? undefined,
        messages,
        params,
        imageParam: 'input',
      })
      .catch((err: unknown) => {
        throw renameParam(err);
      });
    return {
      chat,
      id: hexId('resp'),
      createdAt: Math.floor(Date.now() / 1000),
      echo: {
        instructions: dto.instructions ?? null,
        max_output_tokens: dto.max_output_tokens ?? null,
        temperature: dto.temperature ?? null,
        top_p: dto.top_p ?? null,
        tool_choice: dto.tool_choice ?? 'auto',
        tools: echoTools(params.tools),
        text: dto.text ?? { format: { type: 'text' } },
        parallel_tool_calls: dto.parallel_tool_calls ?? true,
        metadata: dto.metadata ?? {},
        user: dto.user ?? null,
      },
    };
  }

  async complete(
    prep: PreparedResponse,
    signal: AbortSignal,
  ): Promise<{ body: Record<string, unknown>; cost: CostRubDto; servedModel: string }> {
    const out = await this.chat.complete(prep.chat, signal);
    const choice = out.response.choices[0];
    const incomplete = choice?.finish_reason === 'length';
    const output: OutputItem[] = [];
    const text = choice?.message.content ?? '';
    const calls: ToolCall[] = choice?.message.tool_calls ?? [];
    if (text !== '' || calls.length === 0)
      output.push({
        id: hexId('msg'),
        type: 'message',
        status: incomplete ? 'incomplete' : 'completed',
        role: 'assistant',
        content: [outputText(text)],
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
    const cost = costToRub(out.cost, out.chargedMicro);
    const servedModel = out.servedModel.key;
    return {
      body: {
        ...responseObject(
          prep,
          servedModel,
          incomplete ? 'incomplete' : 'completed',
          output,
          toResponsesUsage(out.usage),
        ),
        cost,
      },
      cost,
      servedModel,
    };
  }

  /**
   * The Responses event sequence; the final response.completed carries usage and cost. Errors
   * before the first event propagate (a plain HTTP error); after it, they end the stream in-band
   * with `error` + `response.failed`. `x-gateway-model` (the served model) is set before the first event.
   */
  stream(prep: PreparedResponse, signal: AbortSignal): EventStream<ResponsesStreamEvent> {
    const headers: Record<string, string> = {};
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
      costToRub(out.cost, out.chargedMicro),
      out.servedModel.key,
    );
    headers['x-gateway-model'] = events.servedModel;
    yield* batch;
  }
}

/**
 * The tools as the response object names them (OpenAI's FunctionTool: name, description,
 * parameters and strict always present; strict is false unless the request asked for it).
 */
function echoTools(tools: ToolDefinition[] | undefined): unknown[] {
  return (tools ?? []).map((t) => ({
    type: 'function',
    name: t.function.name,
    description: t.function.description ?? null,
    parameters: t.function.parameters ?? null,
    strict: t.function.strict ?? false,
  }));
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
function responseObject(
  prep: PreparedResponse,
  model: string,
  status: 'in_progress' | 'completed' | 'incomplete' | 'failed',
  output: OutputItem[],
  usage: ResponsesUsage | null,
  error: unknown = null,
): Record<string, unknown> {
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
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    service_tier: 'default',
    store: false,
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
      this.emit('response.output_text.delta', {
        item_id: m.id,
        output_index: m.outputIndex,
        content_index: 0,
        delta: text,
        logprobs: [],
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
  }

  private openMessage(): OpenMessage {
    if (this.message) return this.message;
    const m: OpenMessage = { outputIndex: this.nextIndex++, id: hexId('msg'), text: '' };
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
    const part = outputText(m.text);
    this.emit('response.output_text.done', {
      item_id: m.id,
      output_index: m.outputIndex,
      content_index: 0,
      text: m.text,
      logprobs: [],
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

  private emit(type: string, payload: Record<string, unknown>): void {
    this.out.push({ event: type, data: { type, sequence_number: this.seq++, ...payload } });
  }
}
