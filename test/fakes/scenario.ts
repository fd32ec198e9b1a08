/**
 * Scenario language shared by the fake upstream servers (test-only code, never shipped).
 *
 * A test describes WHAT the upstream should answer in provider-neutral terms (`ChatScenario`);
 * every fake maps it onto its own real wire format (OpenAI chat-completions, Anthropic Messages,
 * Gemini generateContent), streaming or not, depending on the request it receives.
 *
 * Usage numbers are given in the gateway's canonical sense and each fake converts them:
 *
 * | UsageSpec   | OpenAI                                        | Anthropic                                              | Gemini                                   |
 * |-------------|-----------------------------------------------|--------------------------------------------------------|------------------------------------------|
 * | input       | prompt_tokens                                 | input_tokens = input - cacheRead - cacheWrite (min 0)  | promptTokenCount                         |
 * | output      | completion_tokens                             | output_tokens                                          | candidatesTokenCount = output - reasoning|
 * | cacheRead   | prompt_tokens_details.cached_tokens           | cache_read_input_tokens                                | cachedContentTokenCount (when > 0)       |
 * | cacheWrite  | (not representable, ignored)                  | cache_creation_input_tokens                            | (not representable, ignored)             |
 * | reasoning   | completion_tokens_details.reasoning_tokens    | (included in output_tokens)                            | thoughtsTokenCount (when > 0)            |
 *
 * total_tokens / totalTokenCount = input + output.
 */

export interface ToolCallSpec {
  /** provider-style id; generated (`call_…` / `toolu_…`) when omitted. Gemini has no ids on the wire. */
  id?: string;
  name: string;
  arguments: Record<string, unknown>;
}

/** Canonical finish reason; mapped per provider (Anthropic end_turn/max_tokens/tool_use/refusal, Gemini STOP/MAX_TOKENS/STOP/SAFETY). */
export type FinishKind = 'stop' | 'length' | 'tool_calls' | 'content_filter';

export interface UsageSpec {
  /** total prompt tokens, INCLUDING cacheRead and cacheWrite */
  input: number;
  /** total completion tokens, INCLUDING reasoning */
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
  reasoning?: number;
}

/** HTTP error answered before any body, with the provider's real error body. */
export interface HttpFault {
  kind: 'http';
  status: number;
  /** default: a realistic provider message for the status */
  message?: string;
  /** OpenAI `error.type`, Anthropic `error.type`, Gemini `error.status`; default derived from the status */
  errorType?: string;
  /** OpenAI `error.code` (e.g. 'rate_limit_exceeded'); ignored elsewhere */
  code?: string | null;
  /** OpenAI `error.param`; ignored elsewhere */
  param?: string | null;
  /**
   * Seconds. OpenAI / Anthropic: `retry-after` header (429 defaults to 1; pass null to omit).
   * Gemini: a google.rpc.RetryInfo `retryDelay` in `error.details` (Gemini sends no header).
   */
  retryAfter?: number | string | null;
  /** extra response headers */
  headers?: Record<string, string>;
  /** replaces the whole body verbatim */
  rawBody?: string;
}

/** The socket is destroyed before any response byte (client sees ECONNRESET / "socket hang up"). */
export interface ResetFault {
  kind: 'reset';
}

/** 200 + headers + `afterChunks` SSE events (default 2), then the socket is destroyed. Non-stream: half the body, then destroyed. */
export interface ResetMidStreamFault {
  kind: 'reset-mid-stream';
  afterChunks?: number;
}

/** 200 `application/json` whose body is not valid JSON (also for stream requests). */
export interface InvalidJsonFault {
  kind: 'invalid-json';
  raw?: string;
}

/** `afterChunks` good events (default 1), then one event whose data is broken JSON (or `raw` verbatim), then the response ends without the terminal events. Non-stream requests get an invalid JSON body instead. */
export interface MalformedSseFault {
  kind: 'malformed-sse';
  afterChunks?: number;
  raw?: string;
}

/**
 * `afterChunks` good events (default 1), then the provider's in-stream error event, then the response ends.
 * OpenAI `data: {"error":{…}}`, Anthropic `event: error`, Gemini `data: {"error":{…}}`.
 * Default status: OpenAI 500, Anthropic 529 (overloaded_error), Gemini 503. Non-stream requests get the HTTP error instead.
 */
export interface StreamErrorFault {
  kind: 'stream-error';
  afterChunks?: number;
  status?: number;
  errorType?: string;
  message?: string;
}

export type Fault =
  HttpFault | ResetFault | ResetMidStreamFault | InvalidJsonFault | MalformedSseFault | StreamErrorFault;

/** Short builders for faults: `faults.http(429, { retryAfter: 3 })`, `faults.reset()` … */
export const faults = {
  http: (status: number, opts: Omit<HttpFault, 'kind' | 'status'> = {}): HttpFault => ({
    kind: 'http',
    status,
    ...opts,
  }),
  reset: (): ResetFault => ({ kind: 'reset' }),
  resetMidStream: (afterChunks?: number): ResetMidStreamFault => ({ kind: 'reset-mid-stream', afterChunks }),
  invalidJson: (raw?: string): InvalidJsonFault => ({ kind: 'invalid-json', raw }),
  malformedSse: (afterChunks?: number, raw?: string): MalformedSseFault => ({
    kind: 'malformed-sse',
    afterChunks,
    raw,
  }),
  streamError: (opts: Omit<StreamErrorFault, 'kind'> = {}): StreamErrorFault => ({ kind: 'stream-error', ...opts }),
};

export interface ChatScenario {
  /**
   * Only requests of this route consume the scenario ('chat' | 'embeddings'); undefined: any
   * consuming route. GET model listings never consume scenarios. ('images': image generations.)
   */
  route?: 'chat' | 'embeddings' | 'images';
  /** answer text; default (when neither text nor toolCalls is given): the last user message's text, verbatim */
  text?: string;
  /** reasoning / thinking text (OpenAI: DeepSeek-style `reasoning_content`; Anthropic: thinking block; Gemini: `thought: true` parts) */
  reasoning?: string;
  /** Anthropic thinking signature (default derived from the reasoning text) */
  signature?: string;
  toolCalls?: ToolCallSpec[];
  /** default: 'tool_calls' when toolCalls given, else 'stop' */
  finish?: FinishKind;
  /** provider-native finish value used verbatim (e.g. 'stop_sequence', 'RECITATION') */
  rawFinish?: string;
  /** OpenAI: the `logprobs` object of each choice of a non-stream answer (default null) */
  logprobs?: JsonObject;
  /**
   * Exact usage. Default: input = fakeTokenCount(all input text), output computed by `defaultUsage`.
   * null: the response carries no usage at all (OpenAI stream: no usage chunk even with include_usage).
   */
  usage?: UsageSpec | null;
  /** replaces the provider usage object verbatim (OpenAI `usage`, Anthropic non-stream `usage`, Gemini final `usageMetadata`) */
  rawUsage?: unknown;
  /** model written in the response (default: the requested model) */
  model?: string;
  /** response id (default: deterministic per fake, e.g. chatcmpl-fake000001) */
  id?: string;
  /** OpenAI `created` (unix seconds; default now) */
  created?: number;
  /** characters per text / reasoning / tool-argument delta when streaming (default 4) */
  chunkSize?: number;
  fault?: Fault;
  /** delay before the response headers */
  delayMs?: number;
  /** stream: delay between the headers and the first event */
  firstChunkDelayMs?: number;
  /** stream: delay between consecutive events */
  chunkDelayMs?: number;
  /**
   * Never finish. Stream: headers + events up to (not including) the terminal ones — or the
   * first `afterChunks` events — then silence until the client disconnects. Non-stream: no headers at all.
   */
  hang?: boolean | { afterChunks: number };
  /** extra headers on successful responses */
  headers?: Record<string, string>;
}

/** `n` copies of a scenario, for `enqueue(...times(2, { fault: faults.http(500) }), { text: 'ok' })`. */
export function times(n: number, scenario: ChatScenario): ChatScenario[] {
  return Array.from({ length: n }, () => ({ ...scenario }));
}

/** Pure: number of whitespace-separated words, at least 1. */
export function fakeTokenCount(text: string): number {
  const words = text.split(/\s+/).filter((w) => w.length > 0).length;
  return Math.max(1, words);
}

/** Pure: default usage the fakes report when the scenario gives none. */
export function defaultUsage(args: {
  inputText: string;
  text: string;
  reasoning?: string;
  toolCalls?: ToolCallSpec[];
}): UsageSpec {
  const parts: string[] = [];
  if (args.reasoning) parts.push(args.reasoning);
  if (args.text) parts.push(args.text);
  for (const call of args.toolCalls ?? []) parts.push(`${call.name} ${JSON.stringify(call.arguments)}`);
  const output = parts.reduce((sum, p) => sum + fakeTokenCount(p), 0);
  const usage: UsageSpec = { input: fakeTokenCount(args.inputText), output: Math.max(1, output) };
  if (args.reasoning) usage.reasoning = fakeTokenCount(args.reasoning);
  return usage;
}

/** Pure: split by code points into pieces of `size` characters (no piece for ''). */
export function splitText(text: string, size: number): string[] {
  const chars = Array.from(text);
  const step = Math.max(1, Math.floor(size));
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += step) out.push(chars.slice(i, i + step).join(''));
  return out;
}

/** What a fake will answer, after defaults have been applied. */
export interface ResolvedAnswer {
  text: string;
  reasoning?: string;
  toolCalls: Required<ToolCallSpec>[];
  finish: FinishKind;
  usage: UsageSpec | null;
  chunkSize: number;
}

export function resolveAnswer(
  s: ChatScenario,
  ctx: { inputText: string; lastUserText: string; toolId: (index: number) => string; choices?: number },
): ResolvedAnswer {
  const toolCalls = (s.toolCalls ?? []).map((t, i) => ({
    id: t.id ?? ctx.toolId(i),
    name: t.name,
    arguments: t.arguments,
  }));
  const text = s.text ?? (toolCalls.length > 0 ? '' : ctx.lastUserText);
  const finish: FinishKind = s.finish ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop');
  let usage: UsageSpec | null;
  if (s.usage === null) usage = null;
  else if (s.usage) usage = { ...s.usage };
  else {
    usage = defaultUsage({ inputText: ctx.inputText, text, reasoning: s.reasoning, toolCalls });
    const n = ctx.choices ?? 1;
    usage.output *= n;
    if (usage.reasoning !== undefined) usage.reasoning *= n;
  }
  return { text, reasoning: s.reasoning, toolCalls, finish, usage, chunkSize: s.chunkSize ?? 4 };
}

// ---------------------------------------------------------------------------------------------
// small helpers to read untrusted JSON without `any`

export type JsonObject = Record<string, unknown>;

export function asObject(v: unknown): JsonObject | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as JsonObject) : undefined;
}

export function asArray(v: unknown): unknown[] | undefined {
  return Array.isArray(v) ? v : undefined;
}

export function asString(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** Text of a content value: a string, or an array of blocks/parts with a `text` field (others ignored). */
export function textOfContent(content: unknown): string {
  if (typeof content === 'string') return content;
  const parts = asArray(content);
  if (!parts) return '';
  return parts
    .map((p) => {
      const o = asObject(p);
      if (!o) return '';
      if (typeof o.text === 'string') return o.text;
      // Anthropic tool_result blocks nest their content
      if (o.type === 'tool_result') return textOfContent(o.content);
      return '';
    })
    .filter((t) => t.length > 0)
    .join(' ');
}
