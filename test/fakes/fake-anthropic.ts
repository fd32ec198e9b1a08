/**
 * Fake Anthropic upstream (test-only): POST /v1/messages (JSON + SSE with `event:` lines),
 * POST /v1/messages/count_tokens (`fakeTokenCount` of the input text), GET /v1/models.
 * Checks `x-api-key` and `anthropic-version`; errors are `{"type":"error","error":{"type","message"},"request_id"}`.
 */
import { createHash } from 'node:crypto';
import {
  Exchange,
  FaultDialect,
  Plan,
  RecordedRequest,
  ScriptedFake,
  WireReply,
  jsonReply,
  retryAfterHeader,
} from './fake-http';
import {
  FinishKind,
  HttpFault,
  JsonObject,
  ResolvedAnswer,
  StreamErrorFault,
  UsageSpec,
  asArray,
  asObject,
  asString,
  fakeTokenCount,
  resolveAnswer,
  splitText,
  textOfContent,
} from './scenario';

export interface FakeAnthropicOptions {
  /** when set, `x-api-key` must equal it (a missing key is always a 401) */
  apiKey?: string;
  /** ids listed by GET /v1/models */
  models?: string[];
}

function errorType(status: number): { type: string; message: string } {
  switch (status) {
    case 400:
      return { type: 'invalid_request_error', message: 'Invalid request.' };
    case 401:
      return { type: 'authentication_error', message: 'invalid x-api-key' };
    case 403:
      return {
        type: 'permission_error',
        message: 'Your API key does not have permission to use the specified resource.',
      };
    case 404:
      return { type: 'not_found_error', message: 'Not Found' };
    case 413:
      return { type: 'request_too_large', message: 'Request exceeds the maximum allowed number of bytes.' };
    case 429:
      return {
        type: 'rate_limit_error',
        message:
          "This request would exceed your organization's rate limit of 50 requests per minute. For details, refer to: https://docs.claude.com/en/api/rate-limits.",
      };
    case 500:
      return { type: 'api_error', message: 'Internal server error' };
    case 504:
      return { type: 'timeout_error', message: 'Request timed out' };
    case 529:
      return { type: 'overloaded_error', message: 'Overloaded' };
    default:
      return { type: status >= 500 ? 'api_error' : 'invalid_request_error', message: `Upstream error ${status}.` };
  }
}

function anthropicError(
  status: number,
  type: string,
  message: string,
  requestId: string,
  headers: Record<string, string> = {},
): WireReply {
  return jsonReply(
    status,
    { type: 'error', error: { type, message }, request_id: requestId },
    { 'request-id': requestId, ...headers },
  );
}

function event(type: string, payload: JsonObject): string {
  return `event: ${type}\ndata: ${JSON.stringify(payload)}\n\n`;
}

function dialect(requestId: string): FaultDialect {
  return {
    errorReply(fault: HttpFault): WireReply {
      const d = errorType(fault.status);
      const headers = { ...retryAfterHeader(fault), ...fault.headers };
      if (fault.rawBody !== undefined)
        return {
          status: fault.status,
          headers: { 'content-type': 'application/json', 'request-id': requestId, ...headers },
          body: fault.rawBody,
        };
      return anthropicError(fault.status, fault.errorType ?? d.type, fault.message ?? d.message, requestId, headers);
    },
    streamErrorStatus: 529,
    streamErrorFrame(fault: StreamErrorFault): string {
      const d = errorType(fault.status ?? 529);
      return event('error', {
        type: 'error',
        error: { type: fault.errorType ?? d.type, message: fault.message ?? d.message },
      });
    },
    malformedFrame: () =>
      'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"tru\n\n',
    invalidJsonBody: () => '{"id":"msg_broken","type":"message","role":"assistant","content":[',
  };
}

/** Anthropic usage object for a UsageSpec (input_tokens excludes cache reads/writes). */
export function anthropicUsage(u: UsageSpec): JsonObject {
  return {
    input_tokens: Math.max(0, u.input - (u.cacheRead ?? 0) - (u.cacheWrite ?? 0)),
    cache_creation_input_tokens: u.cacheWrite ?? 0,
    cache_read_input_tokens: u.cacheRead ?? 0,
    output_tokens: u.output,
  };
}

export function anthropicStopReason(finish: FinishKind): string {
  return { stop: 'end_turn', length: 'max_tokens', tool_calls: 'tool_use', content_filter: 'refusal' }[finish];
}

/** Default thinking signature: deterministic base64 derived from the thinking text. */
export function fakeThinkingSignature(thinking: string): string {
  return Buffer.from(`fake-signature:${createHash('sha256').update(thinking).digest('hex')}`).toString('base64');
}

/** Text the fake counts as input: `system` plus every message's text / tool_result text, joined by spaces. */
export function anthropicInputText(body: JsonObject): string {
  const parts = [
    textOfContent(body.system),
    ...(asArray(body.messages) ?? []).map((m) => textOfContent(asObject(m)?.content)),
  ];
  return parts.filter((t) => t.length > 0).join(' ');
}

/** Text of the last `role: "user"` message (text blocks, else tool_result content). */
export function anthropicLastUserText(body: JsonObject): string {
  const messages = (asArray(body.messages) ?? []).map(asObject).filter((m): m is JsonObject => m !== undefined);
  const last = [...messages].reverse().find((m) => m.role === 'user');
  return last ? textOfContent(last.content) : '';
}

interface Meta {
  id: string;
  model: string;
  stopReason: string;
  signature: string;
  usage: UsageSpec | null;
  rawUsage: { value: unknown } | undefined;
}

export class FakeAnthropic extends ScriptedFake {
  private constructor(private readonly options: FakeAnthropicOptions) {
    super();
  }

  static async start(options: FakeAnthropicOptions = {}): Promise<FakeAnthropic> {
    const fake = new FakeAnthropic(options);
    await fake.listen();
    return fake;
  }

  protected async handle(rec: RecordedRequest, ex: Exchange): Promise<void> {
    const requestId = `req_${this.nextId()}`;
    const isMessages = rec.method === 'POST' && rec.path === '/v1/messages';
    const isModels = rec.method === 'GET' && rec.path === '/v1/models';
    const isCount = rec.method === 'POST' && rec.path === '/v1/messages/count_tokens';
    if (!isMessages && !isModels && !isCount)
      return ex.send(anthropicError(404, 'not_found_error', 'Not Found', requestId));

    const key = asString(rec.headers['x-api-key']);
    if (!key) return ex.send(anthropicError(401, 'authentication_error', 'x-api-key header is required', requestId));
    if (this.options.apiKey !== undefined && key !== this.options.apiKey)
      return ex.send(anthropicError(401, 'authentication_error', 'invalid x-api-key', requestId));
    if (!asString(rec.headers['anthropic-version']))
      return ex.send(anthropicError(400, 'invalid_request_error', 'anthropic-version: header is required', requestId));

    if (isModels) {
      const data = (this.options.models ?? ['claude-sonnet-4-5', 'claude-haiku-4-5']).map((id) => ({
        type: 'model',
        id,
        display_name: id,
        created_at: '2025-09-29T00:00:00Z',
      }));
      return ex.send(
        jsonReply(
          200,
          { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data[data.length - 1]?.id ?? null },
          { 'request-id': requestId },
        ),
      );
    }

    if (rec.jsonError)
      return ex.send(
        anthropicError(
          400,
          'invalid_request_error',
          'There was an issue with the JSON body of your request.',
          requestId,
        ),
      );
    if (isCount) {
      if (typeof rec.body.model !== 'string' || !asArray(rec.body.messages))
        return ex.send(anthropicError(400, 'invalid_request_error', 'model and messages are required', requestId));
      const text = [anthropicInputText(rec.body), JSON.stringify(rec.body.tools ?? '')].join(' ');
      return ex.send(jsonReply(200, { input_tokens: fakeTokenCount(text) }, { 'request-id': requestId }));
    }
    const invalid = validate(rec.body);
    if (invalid) return ex.send(anthropicError(400, 'invalid_request_error', invalid, requestId));
    const body = rec.body;
    const model = asString(body.model) ?? '';
    const stream = body.stream === true;

    const scenario = this.take('chat');
    rec.scenario = scenario;
    const base = this.nextId();
    const answer = resolveAnswer(scenario, {
      inputText: anthropicInputText(body),
      lastUserText: anthropicLastUserText(body),
      toolId: (i) => `toolu_${base}_${i}`,
    });
    const rawUsage = 'rawUsage' in scenario ? { value: scenario.rawUsage } : undefined;
    if (answer.usage && !rawUsage) rec.usage = answer.usage;
    const meta: Meta = {
      id: scenario.id ?? `msg_${base}`,
      model: scenario.model ?? model,
      stopReason: scenario.rawFinish ?? anthropicStopReason(answer.finish),
      signature: scenario.signature ?? fakeThinkingSignature(answer.reasoning ?? ''),
      usage: answer.usage,
      rawUsage,
    };
    const headers = { 'request-id': requestId };
    const plan: Plan = stream
      ? {
          kind: 'sse',
          headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', ...headers },
          ...streamFrames(answer, meta),
        }
      : { kind: 'json', reply: jsonReply(200, messageBody(answer, meta), headers) };
    return this.play(ex, scenario, plan, dialect(requestId));
  }
}

function validate(body: JsonObject): string | undefined {
  if (typeof body.model !== 'string') return 'model: Field required';
  if (body.max_tokens === undefined) return 'max_tokens: Field required';
  if (typeof body.max_tokens !== 'number' || !Number.isInteger(body.max_tokens) || body.max_tokens < 1)
    return 'max_tokens: Input should be a valid integer greater than or equal to 1';
  const messages = asArray(body.messages);
  if (!messages) return 'messages: Field required';
  for (let i = 0; i < messages.length; i++) {
    const role = asObject(messages[i])?.role;
    if (role === 'system') {
      return 'messages: Unexpected role "system". The Messages API accepts a top-level `system` parameter, not "system" as an input message role.';
    }
    if (role !== 'user' && role !== 'assistant') return `messages.${i}.role: Input should be 'user' or 'assistant'`;
  }
  return undefined;
}

type Block =
  | { type: 'thinking'; thinking: string }
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

function blocksOf(a: ResolvedAnswer): Block[] {
  const blocks: Block[] = [];
  if (a.reasoning !== undefined) blocks.push({ type: 'thinking', thinking: a.reasoning });
  if (a.text !== '') blocks.push({ type: 'text', text: a.text });
  for (const t of a.toolCalls) blocks.push({ type: 'tool_use', id: t.id, name: t.name, input: t.arguments });
  return blocks;
}

function messageBody(a: ResolvedAnswer, meta: Meta): JsonObject {
  const content = blocksOf(a).map((b) => (b.type === 'thinking' ? { ...b, signature: meta.signature } : b));
  const body: JsonObject = {
    id: meta.id,
    type: 'message',
    role: 'assistant',
    model: meta.model,
    content,
    stop_reason: meta.stopReason,
    stop_sequence: null,
  };
  if (meta.rawUsage) body.usage = meta.rawUsage.value;
  else if (meta.usage) body.usage = { ...anthropicUsage(meta.usage), service_tier: 'standard' };
  return body;
}

function streamFrames(a: ResolvedAnswer, meta: Meta): { frames: string[]; terminalFrom: number } {
  const frames: string[] = [];
  const startUsage = meta.usage ? { ...anthropicUsage(meta.usage), output_tokens: 1 } : undefined;
  frames.push(
    event('message_start', {
      type: 'message_start',
      message: {
        id: meta.id,
        type: 'message',
        role: 'assistant',
        model: meta.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: startUsage,
      },
    }),
  );
  const blocks = blocksOf(a);
  if (blocks.length === 0) frames.push(event('ping', { type: 'ping' }));
  blocks.forEach((b, index) => {
    const delta = (d: JsonObject): string =>
      event('content_block_delta', { type: 'content_block_delta', index, delta: d });
    if (b.type === 'thinking') {
      frames.push(
        event('content_block_start', {
          type: 'content_block_start',
          index,
          content_block: { type: 'thinking', thinking: '' },
        }),
      );
      if (index === 0) frames.push(event('ping', { type: 'ping' }));
      for (const piece of splitText(b.thinking, a.chunkSize))
        frames.push(delta({ type: 'thinking_delta', thinking: piece }));
      frames.push(delta({ type: 'signature_delta', signature: meta.signature }));
    } else if (b.type === 'text') {
      frames.push(
        event('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } }),
      );
      if (index === 0) frames.push(event('ping', { type: 'ping' }));
      for (const piece of splitText(b.text, a.chunkSize)) frames.push(delta({ type: 'text_delta', text: piece }));
    } else {
      frames.push(
        event('content_block_start', {
          type: 'content_block_start',
          index,
          content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} },
        }),
      );
      if (index === 0) frames.push(event('ping', { type: 'ping' }));
      frames.push(delta({ type: 'input_json_delta', partial_json: '' }));
      for (const piece of splitText(JSON.stringify(b.input), a.chunkSize))
        frames.push(delta({ type: 'input_json_delta', partial_json: piece }));
    }
    frames.push(event('content_block_stop', { type: 'content_block_stop', index }));
  });
  const terminalFrom = frames.length;
  const messageDelta: JsonObject = {
    type: 'message_delta',
    delta: { stop_reason: meta.stopReason, stop_sequence: null },
  };
  if (meta.rawUsage) messageDelta.usage = meta.rawUsage.value;
  else if (meta.usage) messageDelta.usage = { output_tokens: meta.usage.output };
  frames.push(event('message_delta', messageDelta));
  frames.push(event('message_stop', { type: 'message_stop' }));
  return { frames, terminalFrom };
}
