/**
 * Fake OpenAI upstream (test-only): POST /v1/chat/completions (JSON + SSE), POST /v1/embeddings,
 * GET /v1/models[/{id}]. Speaks the real wire format, including error bodies
 * `{"error":{"message","type","param","code"}}`.
 */
import { PNG } from 'pngjs';
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

// ---------------------------------------------------------------------------------------------
// Pure, deterministic embeddings (tests compute expected vectors / cosine scores with these)

function fnv1a32(text: string): number {
  let h = 0x811c9dc5;
  for (const byte of Buffer.from(text, 'utf8')) {
    h ^= byte;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** mulberry32 PRNG step: returns [value in [0,1), next state] */
function mulberry32(state: number): [number, number] {
  const next = (state + 0x6d2b79f5) >>> 0;
  let t = next;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return [((t ^ (t >>> 14)) >>> 0) / 4294967296, next];
}

/** Words used by `fakeEmbedding`: lower-cased runs of letters/digits. */
export function fakeEmbeddingWords(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/**
 * Pure and deterministic: a bag-of-words embedding. Every word gets a pseudo-random vector seeded
 * from a hash of the word (uniform in [-1,1) per component); the text's vector is their sum,
 * L2-normalised (a text without words uses the hash of the whole text). So texts that share words
 * have a higher cosine similarity, and the same word multiset always gives the same vector.
 * `fakeEmbedding(t, d)` is the normalised prefix of the un-normalised sum for any larger dimension.
 */
export function fakeEmbedding(text: string, dimensions: number): Float32Array {
  if (!Number.isInteger(dimensions) || dimensions < 1)
    throw new RangeError(`dimensions must be a positive integer, got ${dimensions}`);
  const words = fakeEmbeddingWords(text);
  const seeds = (words.length > 0 ? words : [text]).map(fnv1a32);
  const sum = new Float64Array(dimensions);
  for (const seed of seeds) {
    let state = seed;
    for (let i = 0; i < dimensions; i++) {
      const [r, next] = mulberry32(state);
      state = next;
      sum[i] += r * 2 - 1;
    }
  }
  let norm = 0;
  for (const v of sum) norm += v * v;
  norm = Math.sqrt(norm) || 1;
  return Float32Array.from(sum, (v) => v / norm);
}

/** Little-endian float32 bytes, base64 (OpenAI `encoding_format: "base64"`). */
export function encodeEmbeddingBase64(vector: Float32Array): string {
  const buf = Buffer.alloc(vector.length * 4);
  vector.forEach((v, i) => buf.writeFloatLE(v, i * 4));
  return buf.toString('base64');
}

export function decodeEmbeddingBase64(b64: string): Float32Array {
  const buf = Buffer.from(b64, 'base64');
  const out = new Float32Array(buf.length / 4);
  for (let i = 0; i < out.length; i++) out[i] = buf.readFloatLE(i * 4);
  return out;
}

export function cosineSimilarity(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new RangeError(`length mismatch ${a.length} vs ${b.length}`);
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/** Native dimension of an embedding model: explicit map, else 3072 for *-3-large, else 1536. */
export function defaultEmbeddingDimensions(model: string, overrides: Record<string, number> = {}): number {
  return overrides[model] ?? (model.includes('3-large') ? 3072 : 1536);
}

// ---------------------------------------------------------------------------------------------

export interface FakeOpenAIOptions {
  /** when set, `Authorization: Bearer <apiKey>` must match (a missing key is always a 401) */
  apiKey?: string;
  /** ids listed by GET /v1/models */
  models?: string[];
  /** native dimensions per embedding model (see defaultEmbeddingDimensions) */
  embeddingDimensions?: Record<string, number>;
}

const SYSTEM_FINGERPRINT = 'fp_fake';

function openAiError(
  status: number,
  message: string,
  type: string,
  param: string | null = null,
  code: string | null = null,
  headers: Record<string, string> = {},
): WireReply {
  return jsonReply(status, { error: { message, type, param, code } }, headers);
}

function defaultOpenAiError(status: number, model: string): { message: string; type: string; code: string | null } {
  switch (status) {
    case 400:
      return { message: 'Invalid request.', type: 'invalid_request_error', code: null };
    case 401:
      return {
        message:
          'Incorrect API key provided: sk-fake***. You can find your API key at https://platform.openai.com/account/api-keys.',
        type: 'invalid_request_error',
        code: 'invalid_api_key',
      };
    case 403:
      return { message: 'You are not allowed to sample from this model', type: 'invalid_request_error', code: null };
    case 404:
      return {
        message: `The model \`${model}\` does not exist or you do not have access to it.`,
        type: 'invalid_request_error',
        code: 'model_not_found',
      };
    case 429:
      return {
        message: `Rate limit reached for ${model} in organization org-fake on requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in 1s. Visit https://platform.openai.com/account/rate-limits to learn more.`,
        type: 'requests',
        code: 'rate_limit_exceeded',
      };
    case 500:
      return {
        message: 'The server had an error while processing your request. Sorry about that!',
        type: 'server_error',
        code: null,
      };
    case 502:
    case 503:
      return { message: 'The server is overloaded or not ready yet.', type: 'server_error', code: null };
    default:
      return {
        message: `Upstream error ${status}.`,
        type: status >= 500 ? 'server_error' : 'invalid_request_error',
        code: null,
      };
  }
}

function openAiDialect(model: string): FaultDialect {
  return {
    errorReply(fault: HttpFault): WireReply {
      const d = defaultOpenAiError(fault.status, model);
      const headers = { ...retryAfterHeader(fault), ...fault.headers };
      if (fault.rawBody !== undefined)
        return {
          status: fault.status,
          headers: { 'content-type': 'application/json', ...headers },
          body: fault.rawBody,
        };
      return openAiError(
        fault.status,
        fault.message ?? d.message,
        fault.errorType ?? d.type,
        fault.param ?? null,
        fault.code === undefined ? d.code : fault.code,
        headers,
      );
    },
    streamErrorStatus: 500,
    streamErrorFrame(fault: StreamErrorFault): string {
      const d = defaultOpenAiError(fault.status ?? 500, model);
      return sse({
        error: { message: fault.message ?? d.message, type: fault.errorType ?? d.type, param: null, code: d.code },
      });
    },
    malformedFrame: () =>
      'data: {"id":"chatcmpl-broken","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"tru\n\n',
    invalidJsonBody: () => '{"id":"chatcmpl-broken","object":"chat.completion","choices":[',
  };
}

function sse(payload: unknown): string {
  return `data: ${JSON.stringify(payload)}\n\n`;
}

/** OpenAI usage object for a UsageSpec. */
export function openAiUsage(u: UsageSpec): JsonObject {
  return {
    prompt_tokens: u.input,
    completion_tokens: u.output,
    total_tokens: u.input + u.output,
    prompt_tokens_details: { cached_tokens: u.cacheRead ?? 0, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: u.reasoning ?? 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

function openAiFinish(finish: FinishKind, raw?: string): string {
  return raw ?? finish;
}

/** Text the fake counts as input: every message's text content, joined by spaces. */
export function openAiInputText(body: JsonObject): string {
  return (asArray(body.messages) ?? [])
    .map((m) => textOfContent(asObject(m)?.content))
    .filter((t) => t.length > 0)
    .join(' ');
}

/** Text of the last `role: "user"` message ('' when none). */
export function openAiLastUserText(body: JsonObject): string {
  const messages = (asArray(body.messages) ?? []).map(asObject).filter((m): m is JsonObject => m !== undefined);
  const last = [...messages].reverse().find((m) => m.role === 'user');
  return last ? textOfContent(last.content) : '';
}

export class FakeOpenAI extends ScriptedFake {
  private constructor(private readonly options: FakeOpenAIOptions) {
    super();
  }

  static async start(options: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
    const fake = new FakeOpenAI(options);
    await fake.listen();
    return fake;
  }

  protected async handle(rec: RecordedRequest, ex: Exchange): Promise<void> {
    const requestId = { 'x-request-id': `req_${this.nextId()}` };
    if (rec.method === 'GET' && rec.path === '/v1/models') {
      const auth = this.checkAuth(rec);
      if (auth) return ex.send(auth);
      return ex.send(jsonReply(200, { object: 'list', data: this.models().map((id) => modelObject(id)) }, requestId));
    }
    const modelMatch = /^\/v1\/models\/(.+)$/.exec(rec.path);
    if (rec.method === 'GET' && modelMatch) {
      const auth = this.checkAuth(rec);
      if (auth) return ex.send(auth);
      const id = decodeURIComponent(modelMatch[1]);
      if (!this.models().includes(id))
        return ex.send(
          openAiError(404, `The model '${id}' does not exist`, 'invalid_request_error', 'model', 'model_not_found'),
        );
      return ex.send(jsonReply(200, modelObject(id), requestId));
    }
    if (rec.method === 'POST' && rec.path === '/v1/chat/completions') return this.chat(rec, ex, requestId);
    if (rec.method === 'POST' && rec.path === '/v1/embeddings') return this.embeddings(rec, ex, requestId);
    if (rec.method === 'POST' && rec.path === '/v1/images/generations') return this.images(rec, ex, requestId);
    return ex.send(openAiError(404, `Invalid URL (${rec.method} ${rec.path})`, 'invalid_request_error'));
  }

  private models(): string[] {
    return this.options.models ?? ['gpt-4o', 'gpt-4o-mini', 'text-embedding-3-small', 'text-embedding-3-large'];
  }

  private checkAuth(rec: RecordedRequest): WireReply | undefined {
    const header = asString(rec.headers.authorization);
    const key = header?.startsWith('Bearer ') ? header.slice('Bearer '.length).trim() : undefined;
    if (!key) {
      return openAiError(
        401,
        "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY). You can obtain an API key from https://platform.openai.com/account/api-keys.",
        'invalid_request_error',
      );
    }
    if (this.options.apiKey !== undefined && key !== this.options.apiKey) {
      const masked = key.length > 8 ? `${key.slice(0, 3)}***${key.slice(-4)}` : '***';
      return openAiError(
        401,
        `Incorrect API key provided: ${masked}. You can find your API key at https://platform.openai.com/account/api-keys.`,
        'invalid_request_error',
        null,
        'invalid_api_key',
      );
    }
    return undefined;
  }

  private badJson(): WireReply {
    return openAiError(
      400,
      "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)",
      'invalid_request_error',
    );
  }

  private async chat(rec: RecordedRequest, ex: Exchange, requestId: Record<string, string>): Promise<void> {
    const auth = this.checkAuth(rec);
    if (auth) return ex.send(auth);
    if (rec.jsonError) return ex.send(this.badJson());
    const body = rec.body;
    const model = asString(body.model);
    if (!model) return ex.send(openAiError(400, 'you must provide a model parameter', 'invalid_request_error'));
    const messages = asArray(body.messages);
    if (!messages)
      return ex.send(
        openAiError(
          400,
          "Missing required parameter: 'messages'.",
          'invalid_request_error',
          'messages',
          'missing_required_parameter',
        ),
      );
    if (messages.length === 0)
      return ex.send(
        openAiError(
          400,
          "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
          'invalid_request_error',
          'messages',
          'empty_array',
        ),
      );
    const stream = body.stream === true;
    if (body.stream_options !== undefined && body.stream_options !== null && !stream) {
      return ex.send(
        openAiError(
          400,
          "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
          'invalid_request_error',
          'stream_options',
        ),
      );
    }
    const n = body.n === undefined || body.n === null ? 1 : body.n;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > 128) {
      return ex.send(
        openAiError(
          400,
          `Invalid 'n': expected an integer between 1 and 128.`,
          'invalid_request_error',
          'n',
          'invalid_value',
        ),
      );
    }
    const includeUsage = stream && asObject(body.stream_options)?.include_usage === true;

    const scenario = this.take('chat');
    rec.scenario = scenario;
    const base = this.nextId();
    const answer = resolveAnswer(scenario, {
      inputText: openAiInputText(body),
      lastUserText: openAiLastUserText(body),
      toolId: (i) => `call_${base}_${i}`,
      choices: n,
    });
    const hasRawUsage = 'rawUsage' in scenario;
    if (answer.usage && !hasRawUsage && (!stream || includeUsage)) rec.usage = answer.usage;

    const meta: ResponseMeta = {
      id: scenario.id ?? `chatcmpl-${base}`,
      created: scenario.created ?? Math.floor(Date.now() / 1000),
      model: scenario.model ?? model,
      finish: openAiFinish(answer.finish, scenario.rawFinish),
      usage: hasRawUsage ? scenario.rawUsage : answer.usage ? openAiUsage(answer.usage) : undefined,
      logprobs: scenario.logprobs ?? null,
    };
    const plan: Plan = stream
      ? {
          kind: 'sse',
          headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', ...requestId },
          ...streamFrames(answer, meta, n, includeUsage),
        }
      : { kind: 'json', reply: jsonReply(200, completionBody(answer, meta, n), requestId) };
    return this.play(ex, scenario, plan, openAiDialect(model));
  }

  private async embeddings(rec: RecordedRequest, ex: Exchange, requestId: Record<string, string>): Promise<void> {
    const auth = this.checkAuth(rec);
    if (auth) return ex.send(auth);
    if (rec.jsonError) return ex.send(this.badJson());
    const body = rec.body;
    const model = asString(body.model);
    if (!model) return ex.send(openAiError(400, 'you must provide a model parameter', 'invalid_request_error'));
    const inputs = embeddingInputs(body.input);
    if (!inputs) {
      return ex.send(
        openAiError(
          400,
          "'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference.",
          'invalid_request_error',
        ),
      );
    }
    const format = body.encoding_format ?? 'float';
    if (format !== 'float' && format !== 'base64') {
      return ex.send(
        openAiError(
          400,
          `Invalid value for 'encoding_format': '${String(format)}'. Supported values are: 'float' and 'base64'.`,
          'invalid_request_error',
          'encoding_format',
          'invalid_value',
        ),
      );
    }
    const native = defaultEmbeddingDimensions(model, this.options.embeddingDimensions);
    let dims = native;
    if (body.dimensions !== undefined && body.dimensions !== null) {
      if (model.includes('ada-002'))
        return ex.send(
          openAiError(400, 'This model does not support specifying dimensions.', 'invalid_request_error', 'dimensions'),
        );
      const d = body.dimensions;
      if (typeof d !== 'number' || !Number.isInteger(d) || d < 1 || d > native) {
        return ex.send(
          openAiError(
            400,
            `Invalid 'dimensions': must be an integer between 1 and ${native}.`,
            'invalid_request_error',
            'dimensions',
            'invalid_value',
          ),
        );
      }
      dims = d;
    }

    const scenario = this.take('embeddings');
    rec.scenario = scenario;
    const promptTokens = scenario.usage ? scenario.usage.input : inputs.reduce((sum, t) => sum + fakeTokenCount(t), 0);
    const usage =
      'rawUsage' in scenario
        ? scenario.rawUsage
        : scenario.usage === null
          ? undefined
          : { prompt_tokens: promptTokens, total_tokens: promptTokens };
    if (usage !== undefined && !('rawUsage' in scenario)) rec.usage = { input: promptTokens, output: 0 };
    const data = inputs.map((text, index) => {
      const vector = fakeEmbedding(text, dims);
      return {
        object: 'embedding',
        index,
        embedding: format === 'base64' ? encodeEmbeddingBase64(vector) : Array.from(vector),
      };
    });
    const plan: Plan = {
      kind: 'json',
      reply: jsonReply(200, { object: 'list', data, model: scenario.model ?? model, usage }, requestId),
    };
    return this.play(ex, scenario, plan, openAiDialect(model));
  }

  /** POST /v1/images/generations: gpt-image-1 (b64 + token usage) and dall-e-3 (b64_json on request, no usage). */
  private async images(rec: RecordedRequest, ex: Exchange, requestId: Record<string, string>): Promise<void> {
    const auth = this.checkAuth(rec);
    if (auth) return ex.send(auth);
    if (rec.jsonError) return ex.send(this.badJson());
    const body = rec.body;
    const model = asString(body.model) ?? 'dall-e-2';
    const prompt = asString(body.prompt);
    if (!prompt)
      return ex.send(
        openAiError(
          400,
          "Missing required parameter: 'prompt'.",
          'invalid_request_error',
          'prompt',
          'missing_required_parameter',
        ),
      );
    const dalle = model.startsWith('dall-e');
    if (!dalle && body.response_format !== undefined)
      return ex.send(
        openAiError(
          400,
          "Unknown parameter: 'response_format'.",
          'invalid_request_error',
          'response_format',
          'unknown_parameter',
        ),
      );
    if (dalle && body.response_format !== 'b64_json')
      return ex.send(
        openAiError(400, 'fake: the gateway must ask for b64_json', 'invalid_request_error', 'response_format'),
      );
    const n = typeof body.n === 'number' ? body.n : 1;
    if (model === 'dall-e-3' && n !== 1)
      return ex.send(
        openAiError(
          400,
          "Invalid 'n': integer above maximum value. Expected a value <= 1, but got 2 instead.",
          'invalid_request_error',
          'n',
          'integer_above_max_value',
        ),
      );
    const size = asString(body.size) ?? '1024x1024';
    if (!/^\d+x\d+$/.test(size))
      return ex.send(openAiError(400, `Invalid value: '${size}'.`, 'invalid_request_error', 'size', 'invalid_value'));
    const quality = asString(body.quality) ?? (dalle ? 'standard' : 'medium');
    const scenario = this.take('images');
    rec.scenario = scenario;
    const answer = imageAnswer(
      { model, prompt, n, size, quality },
      scenario.usage,
      scenario.rawUsage,
      'rawUsage' in scenario,
    );
    if (answer.usage) {
      const u = answer.usage as { input_tokens: number; output_tokens: number };
      rec.usage = { input: u.input_tokens, output: u.output_tokens };
    }
    return this.play(ex, scenario, { kind: 'json', reply: jsonReply(200, answer, requestId) }, openAiDialect(model));
  }
}

/** gpt-image-1 output tokens per image by size and quality (OpenAI's published table). */
export const GPT_IMAGE_OUTPUT_TOKENS: Record<string, Record<string, number>> = {
  '1024x1024': { low: 272, medium: 1056, high: 4160 },
  '1024x1536': { low: 408, medium: 1584, high: 6240 },
  '1536x1024': { low: 400, medium: 1568, high: 6208 },
};

/** A solid PNG of the given size (colour derived from the prompt), as the real API returns bytes. */
export function fakePng(width: number, height: number, seed: string): Buffer {
  const png = new PNG({ width, height });
  const c = [...seed].reduce((h, ch) => (h * 31 + ch.charCodeAt(0)) >>> 0, 7);
  for (let i = 0; i < png.data.length; i += 4) {
    png.data[i] = c & 0xff;
    png.data[i + 1] = (c >> 8) & 0xff;
    png.data[i + 2] = (c >> 16) & 0xff;
    png.data[i + 3] = 255;
  }
  return PNG.sync.write(png, { filterType: 0 });
}

interface ImageAnswerOptions {
  model: string;
  prompt: string;
  n: number;
  size: string;
  quality: string;
}

function imageAnswer(
  o: ImageAnswerOptions,
  usage: UsageSpec | null | undefined,
  rawUsage: unknown,
  hasRaw: boolean,
): JsonObject {
  const [w, h] = o.size.split('x').map(Number);
  const data = Array.from({ length: o.n }, (_, i) => {
    const b64 = fakePng(w, h, `${o.prompt}#${i}`).toString('base64');
    return o.model.startsWith('dall-e')
      ? { b64_json: b64, revised_prompt: `A detailed rendition of: ${o.prompt}` }
      : { b64_json: b64 };
  });
  const body: JsonObject = { created: 1731000000, data };
  if (!o.model.startsWith('dall-e')) {
    const input = usage ? usage.input : fakeTokenCount(o.prompt);
    const output = usage ? usage.output : (GPT_IMAGE_OUTPUT_TOKENS[o.size]?.[o.quality] ?? 1056) * o.n;
    Object.assign(body, { background: 'opaque', output_format: 'png', quality: o.quality, size: o.size });
    if (hasRaw) {
      if (rawUsage !== undefined) body.usage = rawUsage as JsonObject;
    } else if (usage !== null) {
      body.usage = {
        input_tokens: input,
        input_tokens_details: { image_tokens: 0, text_tokens: input },
        output_tokens: output,
        total_tokens: input + output,
      };
    }
  }
  return body;
}

interface ResponseMeta {
  id: string;
  created: number;
  model: string;
  finish: string;
  usage: unknown;
  /** the choice's logprobs object (non-stream answers), null by default */
  logprobs: unknown;
}

function modelObject(id: string): JsonObject {
  return { id, object: 'model', created: 1715367049, owned_by: 'system' };
}

/** string | string[] | number[] | number[][] → texts (token arrays are joined with spaces); undefined when invalid. */
function embeddingInputs(input: unknown): string[] | undefined {
  if (typeof input === 'string') return input.length > 0 ? [input] : undefined;
  const arr = asArray(input);
  if (!arr || arr.length === 0) return undefined;
  if (arr.every((x) => typeof x === 'number')) return [arr.join(' ')];
  const out: string[] = [];
  for (const item of arr) {
    if (typeof item === 'string' && item.length > 0) out.push(item);
    else if (Array.isArray(item) && item.length > 0 && item.every((x) => typeof x === 'number'))
      out.push(item.join(' '));
    else return undefined;
  }
  return out;
}

function completionBody(a: ResolvedAnswer, meta: ResponseMeta, n: number): JsonObject {
  const message: JsonObject = { role: 'assistant', content: a.text === '' && a.toolCalls.length > 0 ? null : a.text };
  if (a.reasoning !== undefined) message.reasoning_content = a.reasoning;
  if (a.toolCalls.length > 0) {
    message.tool_calls = a.toolCalls.map((t) => ({
      id: t.id,
      type: 'function',
      function: { name: t.name, arguments: JSON.stringify(t.arguments) },
    }));
  }
  message.refusal = null;
  message.annotations = [];
  const choices = Array.from({ length: n }, (_, index) => ({
    index,
    message,
    logprobs: meta.logprobs,
    finish_reason: meta.finish,
  }));
  return {
    id: meta.id,
    object: 'chat.completion',
    created: meta.created,
    model: meta.model,
    choices,
    usage: meta.usage,
    service_tier: 'default',
    system_fingerprint: SYSTEM_FINGERPRINT,
  };
}

function streamFrames(
  a: ResolvedAnswer,
  meta: ResponseMeta,
  n: number,
  includeUsage: boolean,
): { frames: string[]; terminalFrom: number } {
  const chunk = (choices: unknown[], usage?: unknown): string => {
    const c: JsonObject = {
      id: meta.id,
      object: 'chat.completion.chunk',
      created: meta.created,
      model: meta.model,
      service_tier: 'default',
      system_fingerprint: SYSTEM_FINGERPRINT,
      choices,
    };
    if (includeUsage) c.usage = usage ?? null;
    return sse(c);
  };
  const delta = (index: number, d: JsonObject): JsonObject => ({
    index,
    delta: d,
    logprobs: null,
    finish_reason: null,
  });

  const frames: string[] = [];
  for (let index = 0; index < n; index++) {
    const toolsOnly = a.text === '' && a.reasoning === undefined && a.toolCalls.length > 0;
    if (!toolsOnly) frames.push(chunk([delta(index, { role: 'assistant', content: '', refusal: null })]));
    for (const piece of splitText(a.reasoning ?? '', a.chunkSize))
      frames.push(chunk([delta(index, { content: null, reasoning_content: piece })]));
    for (const piece of splitText(a.text, a.chunkSize)) frames.push(chunk([delta(index, { content: piece })]));
    a.toolCalls.forEach((t, j) => {
      const head: JsonObject = {
        tool_calls: [{ index: j, id: t.id, type: 'function', function: { name: t.name, arguments: '' } }],
      };
      frames.push(
        chunk([
          delta(index, toolsOnly && j === 0 ? { role: 'assistant', content: null, ...head, refusal: null } : head),
        ]),
      );
      for (const piece of splitText(JSON.stringify(t.arguments), a.chunkSize)) {
        frames.push(chunk([delta(index, { tool_calls: [{ index: j, function: { arguments: piece } }] })]));
      }
    });
  }
  const terminalFrom = frames.length;
  for (let index = 0; index < n; index++)
    frames.push(chunk([{ index, delta: {}, logprobs: null, finish_reason: meta.finish }]));
  if (includeUsage && meta.usage !== undefined) frames.push(chunk([], meta.usage));
  frames.push('data: [DONE]\n\n');
  return { frames, terminalFrom };
}
