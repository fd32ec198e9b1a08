/**
 * Fake GigaChat upstream (test-only), speaking Sber's wire format:
 * - `POST /api/v2/oauth`: `Authorization: Basic <auth key>`, a uuid4 `RqUID`, form body
 *   `scope=…` → `{access_token, expires_at}` (ms). A wrong key answers 401 `{code, message}`.
 * - `POST /api/v1/chat/completions` (JSON, or SSE with `stream: true` ending in `data: [DONE]`):
 *   `Authorization: Bearer <token>`, an unknown / expired token answers 401. Tools are `functions`;
 *   the answer's `function_call.arguments` is an OBJECT; tool results come back as `function`
 *   messages whose content must be JSON. Usage: `prompt_tokens` (without cache),
 *   `precached_prompt_tokens`, `completion_tokens`, `total_tokens`.
 * - `POST /api/v1/embeddings` (`Embeddings`, `EmbeddingsGigaR`): number arrays, usage per item.
 * Errors are `{"status": <code>, "message": "…"}` (429 with `retry-after` unless `retryAfter: null`).
 */
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
import { fakeEmbedding } from './fake-openai';
import {
  HttpFault,
  JsonObject,
  ResolvedAnswer,
  UsageSpec,
  asArray,
  asObject,
  asString,
  fakeTokenCount,
  resolveAnswer,
  splitText,
} from './scenario';

export interface FakeGigaChatOptions {
  /** the authorization key (base64 of client_id:client_secret) the OAuth endpoint accepts */
  authKey?: string;
  /** the scope the OAuth endpoint accepts (default GIGACHAT_API_PERS) */
  scope?: string;
  /** access-token lifetime (default 30 min) */
  tokenTtlMs?: number;
  /** delay of each OAuth answer (makes concurrent refreshes observable) */
  oauthDelayMs?: number;
  /** native dimensions per embedding model (default 1024; EmbeddingsGigaR 2560) */
  embeddingDimensions?: Record<string, number>;
}

const UUID4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
const ROLES = new Set(['system', 'user', 'assistant', 'function']);

function gigaError(status: number, message: string, headers: Record<string, string> = {}): WireReply {
  return jsonReply(status, { status, message }, headers);
}

const DEFAULT_MESSAGES: Record<number, string> = {
  400: 'Bad request',
  401: 'Unauthorized',
  404: 'No such model',
  422: 'Invalid params',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

const dialect: FaultDialect = {
  errorReply(fault: HttpFault): WireReply {
    const headers = { ...retryAfterHeader(fault), ...(fault.headers ?? {}) };
    if (fault.rawBody !== undefined)
      return { status: fault.status, headers: { 'content-type': 'application/json', ...headers }, body: fault.rawBody };
    return gigaError(fault.status, fault.message ?? DEFAULT_MESSAGES[fault.status] ?? `Error ${fault.status}`, headers);
  },
  streamErrorStatus: 500,
  streamErrorFrame: (f) =>
    `data: ${JSON.stringify({ status: f.status ?? 500, message: f.message ?? 'Internal Server Error' })}\n\n`,
  malformedFrame: () => 'data: {"choices":[{"delta":{"content":"tru\n\n',
  invalidJsonBody: () => '{"choices":[{"message":',
};

/** GigaChat usage for a UsageSpec: prompt_tokens excludes the precached (cache-read) tokens. */
export function gigaChatUsage(u: UsageSpec): JsonObject {
  const cached = u.cacheRead ?? 0;
  return {
    prompt_tokens: u.input - cached,
    completion_tokens: u.output,
    total_tokens: u.input - cached + u.output,
    precached_prompt_tokens: cached,
  };
}

interface IssuedToken {
  expiresAt: number;
  revoked: boolean;
}

export class FakeGigaChat extends ScriptedFake {
  private readonly tokens = new Map<string, IssuedToken>();
  private tokenCounter = 0;

  private constructor(private readonly options: FakeGigaChatOptions) {
    super();
  }

  static async start(options: FakeGigaChatOptions = {}): Promise<FakeGigaChat> {
    const fake = new FakeGigaChat(options);
    await fake.listen();
    return fake;
  }

  /** `GIGACHAT_OAUTH_URL` */
  get oauthUrl(): string {
    return `${this.baseUrl}/api/v2/oauth`;
  }

  /** `GIGACHAT_BASE_URL` */
  get apiUrl(): string {
    return `${this.baseUrl}/api/v1`;
  }

  /** OAuth requests received (token fetches) */
  get oauthRequests(): RecordedRequest[] {
    return this.requestsTo('/api/v2/oauth');
  }

  /** Every token issued so far stops working (as if its 30 minutes had passed): the API answers 401. */
  expireTokens(): void {
    for (const t of this.tokens.values()) t.revoked = true;
  }

  /** Environment for the gateway. */
  env(): Record<string, string> {
    return {
      GIGACHAT_AUTH_KEY: this.options.authKey ?? 'Z2lnYS1jbGllbnQ6Z2lnYS1zZWNyZXQ=',
      GIGACHAT_SCOPE: this.options.scope ?? 'GIGACHAT_API_PERS',
      GIGACHAT_OAUTH_URL: this.oauthUrl,
      GIGACHAT_BASE_URL: this.apiUrl,
    };
  }

  protected async handle(rec: RecordedRequest, ex: Exchange): Promise<void> {
    if (rec.method === 'POST' && rec.path === '/api/v2/oauth') return this.oauth(rec, ex);
    const route =
      rec.path === '/api/v1/chat/completions' ? 'chat' : rec.path === '/api/v1/embeddings' ? 'embeddings' : undefined;
    if (rec.method !== 'POST' || !route) return ex.send(gigaError(404, `Not found: ${rec.method} ${rec.path}`));
    const bearer = /^Bearer (.+)$/.exec(asString(rec.headers.authorization) ?? '')?.[1];
    const token = bearer ? this.tokens.get(bearer) : undefined;
    if (!token || token.revoked || token.expiresAt <= Date.now()) return ex.send(gigaError(401, 'Unauthorized'));
    if (rec.jsonError) return ex.send(gigaError(400, `Invalid JSON: ${rec.jsonError}`));
    return route === 'chat' ? this.chat(rec, ex) : this.embeddings(rec, ex);
  }

  private async oauth(rec: RecordedRequest, ex: Exchange): Promise<void> {
    await ex.sleep(this.options.oauthDelayMs ?? 0);
    const rqUid = asString(rec.headers.rquid);
    if (!rqUid || !UUID4.test(rqUid))
      return ex.send(jsonReply(400, { code: 5, message: 'RqUID is not a valid uuid4' }));
    const expected = this.options.authKey ?? 'Z2lnYS1jbGllbnQ6Z2lnYS1zZWNyZXQ=';
    if (asString(rec.headers.authorization) !== `Basic ${expected}`)
      return ex.send(jsonReply(401, { code: 6, message: "credentials doesn't match db data" }));
    if (!String(rec.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded'))
      return ex.send(jsonReply(400, { code: 7, message: 'scope is empty' }));
    const scope = new URLSearchParams(rec.rawBody).get('scope');
    if (scope !== (this.options.scope ?? 'GIGACHAT_API_PERS'))
      return ex.send(jsonReply(400, { code: 7, message: `scope from db not fully includes consumed scope` }));
    this.tokenCounter++;
    const access = `giga-token-${this.tokenCounter}`;
    const expiresAt = Date.now() + (this.options.tokenTtlMs ?? 30 * 60_000);
    this.tokens.set(access, { expiresAt, revoked: false });
    return ex.send(jsonReply(200, { access_token: access, expires_at: expiresAt }));
  }

  private async chat(rec: RecordedRequest, ex: Exchange): Promise<void> {
    const body = rec.body;
    const model = asString(body.model);
    if (!model) return ex.send(gigaError(422, 'Invalid params: model is required'));
    const messages = (asArray(body.messages) ?? []).map(asObject);
    if (messages.length === 0) return ex.send(gigaError(422, 'Invalid params: messages must not be empty'));
    for (const m of messages) {
      const role = asString(m?.role);
      if (!m || !role || !ROLES.has(role)) return ex.send(gigaError(422, `Invalid params: unknown role ${role}`));
      if (typeof m.content !== 'string') return ex.send(gigaError(422, 'Invalid params: content must be a string'));
      const call = m.function_call;
      if (call !== undefined && (role !== 'assistant' || !asObject(asObject(call)?.arguments)))
        return ex.send(gigaError(422, 'Invalid params: function_call.arguments must be an object'));
      if (role === 'function') {
        if (!asString(m.name)) return ex.send(gigaError(422, 'Invalid params: function message without name'));
        try {
          JSON.parse(m.content);
        } catch {
          return ex.send(gigaError(422, 'Invalid params: function result must be a JSON string'));
        }
      }
    }
    for (const k of ['tools', 'tool_choice', 'response_format', 'stop'])
      if (k in body) return ex.send(gigaError(422, `Invalid params: unknown field ${k}`));
    const functions = asArray(body.functions);
    const scenario = this.take('chat');
    rec.scenario = scenario;
    const texts = messages.map((m) => String(m?.content ?? ''));
    const lastUser = [...messages].reverse().find((m) => m?.role === 'user');
    const answer = resolveAnswer(scenario, {
      inputText: [...texts, ...(functions ?? []).map((f) => JSON.stringify(f))].join(' '),
      lastUserText: String(lastUser?.content ?? ''),
      toolId: (i) => `fn${i}`,
    });
    const hasRaw = 'rawUsage' in scenario;
    if (answer.usage && !hasRaw) rec.usage = answer.usage;
    const usage = hasRaw ? scenario.rawUsage : answer.usage ? gigaChatUsage(answer.usage) : undefined;
    const created = scenario.created ?? Math.floor(Date.now() / 1000);
    const version = scenario.model ?? `${model}:2.0.28.2`;
    const finish = scenario.rawFinish ?? finishOf(answer);
    const call = answer.toolCalls[0];
    const stateId = `${this.nextId()}-state`;
    let plan: Plan;
    if (body.stream === true) {
      const frames: string[] = [];
      const frame = (choice: JsonObject, extra: JsonObject = {}) =>
        `data: ${JSON.stringify({ choices: [{ ...choice, index: 0 }], created, model: version, object: 'chat.completion', ...extra })}\n\n`;
      const pieces = splitText(answer.text, answer.chunkSize);
      pieces.forEach((p, i) =>
        frames.push(frame({ delta: { content: p, ...(i === 0 ? { role: 'assistant' } : {}) } })),
      );
      const last: JsonObject = { delta: { content: '' }, finish_reason: finish };
      if (call)
        last.delta = {
          content: '',
          role: 'assistant',
          function_call: { name: call.name, arguments: call.arguments },
          functions_state_id: stateId,
        };
      frames.push(frame(last, usage !== undefined ? { usage } : {}));
      frames.push('data: [DONE]\n\n');
      plan = { kind: 'sse', headers: { 'content-type': 'text/event-stream' }, frames, terminalFrom: frames.length - 2 };
    } else {
      const message: JsonObject = { content: answer.text, role: 'assistant' };
      if (call) {
        message.function_call = { name: call.name, arguments: call.arguments };
        message.functions_state_id = stateId;
      }
      const reply: JsonObject = {
        choices: [{ message, index: 0, finish_reason: finish }],
        created,
        model: version,
        object: 'chat.completion',
      };
      if (usage !== undefined) reply.usage = usage;
      plan = { kind: 'json', reply: jsonReply(200, reply) };
    }
    return this.play(ex, scenario, plan, dialect);
  }

  private async embeddings(rec: RecordedRequest, ex: Exchange): Promise<void> {
    const model = asString(rec.body.model);
    const inputs = asArray(rec.body.input);
    if (!model || !inputs || !inputs.every((i) => typeof i === 'string'))
      return ex.send(gigaError(422, 'Invalid params: model and input (array of strings) are required'));
    const dims =
      this.options.embeddingDimensions?.[model] ??
      (model === 'EmbeddingsGigaR' ? 2560 : model === 'Embeddings' ? 1024 : 0);
    if (!dims) return ex.send(gigaError(404, 'No such model'));
    const scenario = this.take('embeddings');
    rec.scenario = scenario;
    const counts = (inputs as string[]).map(fakeTokenCount);
    rec.usage = { input: counts.reduce((a, b) => a + b, 0), output: 0 };
    const data = (inputs as string[]).map((text, index) => ({
      object: 'embedding',
      embedding: Array.from(fakeEmbedding(text, dims)),
      index,
      usage: { prompt_tokens: counts[index] },
    }));
    return this.play(ex, scenario, { kind: 'json', reply: jsonReply(200, { object: 'list', data, model }) }, dialect);
  }
}

function finishOf(a: ResolvedAnswer): string {
  if (a.toolCalls.length > 0) return 'function_call';
  return { stop: 'stop', length: 'length', tool_calls: 'function_call', content_filter: 'blacklist' }[a.finish];
}
