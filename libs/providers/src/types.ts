/**
 * Canonical wire types inside the gateway.
 *
 * The gateway's internal request/response format IS the OpenAI chat-completions format (the same
 * approach as Portkey): every adapter maps this canonical request to its provider's request and
 * maps the provider's response / stream events back to canonical responses / chunks.
 * Nothing in here is provider specific.
 */

export type ChatRole = 'system' | 'developer' | 'user' | 'assistant' | 'tool';

export interface TextPart {
  type: 'text';
  text: string;
}

export interface ImagePart {
  type: 'image_url';
  image_url: { url: string; detail?: 'auto' | 'low' | 'high' };
}

export type ContentPart = TextPart | ImagePart;

export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface ChatMessage {
  role: ChatRole;
  content: string | ContentPart[] | null;
  name?: string;
  /** assistant turns that called tools */
  tool_calls?: ToolCall[];
  /** tool result turns */
  tool_call_id?: string;
}

export interface ToolDefinition {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown>; strict?: boolean };
}

export type ToolChoice = 'none' | 'auto' | 'required' | { type: 'function'; function: { name: string } };

export type ResponseFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | {
      type: 'json_schema';
      json_schema: { name: string; description?: string; schema?: Record<string, unknown>; strict?: boolean };
    };

export interface CanonicalChatRequest {
  /** upstream model id (catalog entry's `upstream_model`) */
  model: string;
  messages: ChatMessage[];
  max_tokens?: number;
  temperature?: number;
  top_p?: number;
  stop?: string | string[];
  seed?: number;
  user?: string;
  n?: number;
  tools?: ToolDefinition[];
  tool_choice?: ToolChoice;
  parallel_tool_calls?: boolean;
  response_format?: ResponseFormat;
  stream?: boolean;
  // sampling and output controls: each adapter forwards or translates the ones its provider
  // honours; the chat pipeline refuses the others before any call (see chat-controls.ts)
  frequency_penalty?: number;
  presence_penalty?: number;
  logit_bias?: Record<string, number>;
  /** token log probabilities in the answer (top_logprobs alternatives per token) */
  logprobs?: boolean;
  top_logprobs?: number;
  reasoning_effort?: ReasoningEffort;
  service_tier?: string;
  /** predicted output (OpenAI): {type: "content", content} */
  prediction?: Record<string, unknown>;
  verbosity?: 'low' | 'medium' | 'high';
}

export type ReasoningEffort = 'minimal' | 'low' | 'medium' | 'high';

/** The sampling and output controls of a chat request (named as OpenAI names them). */
export const CHAT_CONTROLS = [
  'frequency_penalty',
  'presence_penalty',
  'logit_bias',
  'logprobs',
  'top_logprobs',
  'reasoning_effort',
  'service_tier',
  'prediction',
  'verbosity',
] as const;

export type ChatControl = (typeof CHAT_CONTROLS)[number];

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | null;

/** Usage normalised across providers. prompt_tokens INCLUDES cache read/write tokens. */
export interface CanonicalUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /** tokens served from the provider-side prompt cache (subset of prompt_tokens) */
  cache_read_tokens: number;
  /** tokens written to the provider-side prompt cache (subset of prompt_tokens) */
  cache_write_tokens: number;
  /** of cache_write_tokens, those written with a 1-hour lifetime (priced apart; the rest is the 5-minute cache) */
  cache_write_1h_tokens?: number;
  /** reasoning tokens (subset of completion_tokens), when the provider reports them */
  reasoning_tokens?: number;
}

/** The prompt side of a usage report (tokens counted, and billed, by the provider). */
export type PromptUsage = Pick<
  CanonicalUsage,
  'prompt_tokens' | 'cache_read_tokens' | 'cache_write_tokens' | 'cache_write_1h_tokens'
>;

export interface CanonicalChoice {
  index: number;
  message: {
    role: 'assistant';
    content: string | null;
    /** reasoning / thinking text, null when the model produced none */
    reasoning_content?: string | null;
    tool_calls?: ToolCall[];
    refusal?: string | null;
  };
  finish_reason: FinishReason;
  /** token log probabilities, as the provider answered them (with logprobs) */
  logprobs?: unknown;
}

export interface CanonicalChatResponse {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: CanonicalChoice[];
  /** null only when the provider reported nothing (the gateway then counts with the tokenizer) */
  usage: CanonicalUsage | null;
  /** the upstream's own response body, when the call went to an upstream speaking the caller's wire format */
  passthrough?: unknown;
}

export interface ToolCallDelta {
  index: number;
  id?: string;
  type?: 'function';
  function?: { name?: string; arguments?: string };
}

export interface CanonicalChunkChoice {
  index: number;
  delta: {
    role?: 'assistant';
    content?: string | null;
    reasoning_content?: string | null;
    tool_calls?: ToolCallDelta[];
  };
  finish_reason: FinishReason;
  /** token log probabilities of this delta (with logprobs) */
  logprobs?: unknown;
}

export interface CanonicalChatChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: CanonicalChunkChoice[];
  /** present on the chunk(s) that carry usage (usually the last) */
  usage?: CanonicalUsage | null;
  /**
   * The prompt side of the usage as the upstream reported it when the answer started (Anthropic's
   * `message_start`), before the final report: a stream cut before that report is charged with it.
   */
  promptUsage?: PromptUsage;
  /**
   * The upstream's own SSE events this chunk was read from, when the call went to an upstream
   * speaking the caller's wire format (relayed unchanged; the canonical fields serve accounting).
   */
  passthrough?: SseEvent[];
}

/** Embeddings: canonical request/response (OpenAI shape), vectors always decoded to Float32Array. */
export interface CanonicalEmbeddingRequest {
  model: string;
  input: string[];
  dimensions?: number;
  /** what the texts are for; providers with separate query and document models pick by it (default: document) */
  purpose?: EmbeddingPurpose;
}

/** Texts to be searched (`document`: chunks, stored texts) or the search itself (`query`). */
export type EmbeddingPurpose = 'query' | 'document';

export interface CanonicalEmbeddingResponse {
  vectors: Float32Array[];
  /** tokens as reported by the provider */
  prompt_tokens: number;
}

/** One Server-Sent Event as read off the wire. */
export interface SseEvent {
  event?: string;
  data: string;
  id?: string;
}

/**
 * A provider error mapped to a gateway error category. The chat layer turns this into the public
 * OpenAI-shaped error with the right status: invalid_request → 400 (provider's message),
 * rate_limited → 429 (+ Retry-After), upstream → 502, timeout → 504, auth → 502 (gateway's
 * credentials are wrong: not the caller's fault).
 */
export type ProviderErrorKind = 'invalid_request' | 'rate_limited' | 'auth' | 'upstream' | 'timeout';

export class ProviderError extends Error {
  constructor(
    public readonly kind: ProviderErrorKind,
    message: string,
    public readonly upstreamStatus?: number,
    public readonly retryAfterSeconds?: number,
    public readonly param?: string | null,
    /** what happened in full (addresses, socket errors): for the logs, never for the client */
    public readonly detail?: string,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}

/** Credentials and endpoint of one provider, from configuration. */
export interface ProviderConnection {
  apiKey: string;
  baseUrl: string;
  timeoutMs: number;
  /** the definition's own variables (its env spec's `extra`) that are set, by name: `extra['FOLDER_ID']` */
  extra?: Readonly<Record<string, string>>;
}

/** What every chat-capable adapter folder exports (pure functions + a per-stream state). */
export interface ChatAdapter<TStreamState = unknown> {
  /** provider type, e.g. 'openai' */
  readonly type: string;
  /** how the upstream frames a streamed answer: Server-Sent Events (default) or one JSON object per line, each read as an event's `data` */
  readonly streamFraming?: 'sse' | 'ndjson';
  /** Build the upstream HTTP request (path relative to baseUrl, headers, JSON body). */
  buildChatRequest(
    req: CanonicalChatRequest,
    conn: ProviderConnection,
  ): { url: string; headers: Record<string, string>; body: unknown };
  /**
   * Map a complete upstream JSON response to the canonical response; `nowMs` (the gateway's clock)
   * dates a response the provider does not date. Throws ProviderError('upstream') on a body it cannot read.
   */
  mapChatResponse(body: unknown, requestedModel: string, nowMs: number): CanonicalChatResponse;
  /** Fresh per-stream state; `nowMs` (the gateway's clock) dates chunks the provider does not date. */
  createStreamState(requestedModel: string, nowMs: number): TStreamState;
  /** Map one SSE event to zero or more canonical chunks. Throws ProviderError('upstream') on an event it cannot read or an in-stream error event. */
  mapStreamEvent(event: SseEvent, state: TStreamState): CanonicalChatChunk[];
  /**
   * Call once after the upstream stream ended normally (the last SSE event was mapped). Returns
   * trailing chunks (e.g. the `choices: []` usage chunk a provider only knows at the end). Throws
   * ProviderError('upstream') when the stream ended before the provider's completion marker.
   */
  flush?(state: TStreamState): CanonicalChatChunk[];
  /** Map a non-2xx upstream answer to a ProviderError; `nowMs` is the gateway's clock when it arrived. */
  mapError(status: number, body: string, headers: Record<string, string>, nowMs: number): ProviderError;
}
