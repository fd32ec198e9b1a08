/**
 * Fake Yandex AI Studio upstream (test-only): the Foundation Models API.
 * - POST /foundationModels/v1/completion: `{modelUri, completionOptions, messages, tools, …}` →
 *   `{"result": {alternatives, usage, modelVersion}}`; with `completionOptions.stream` the answer is
 *   newline-delimited JSON, one `{"result": …}` per line, each carrying the WHOLE text so far (the
 *   real API's cumulative streaming). Usage counts are int64 strings.
 * - POST /foundationModels/v1/textEmbedding: `{modelUri, text}` → `{embedding, numTokens, modelVersion}`
 *   (one text per call; `text-search-doc` and `text-search-query`, 256 dimensions).
 * Auth: `Authorization: Api-Key <key>` or `Bearer <IAM token>`; `x-folder-id` must name the folder,
 * and every model URI must be in it. Errors are the API gateway's
 * `{"error": {"grpcCode", "httpCode", "message", "httpStatus", "details"}}`, or the gRPC gateway's
 * `{"code", "message", "details"}` for a fault with `errorType: 'grpc'`.
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
} from './scenario';

export interface FakeYandexOptions {
  /** accepted `Api-Key` (default 'yandex-test-key') */
  apiKey?: string;
  /** accepted IAM token (`Bearer`); none accepted when unset */
  iamToken?: string;
  /** the folder every request must name (default 'b1gtestfolder') */
  folderId?: string;
}

/** Native dimensions of the text-search models. */
export const YANDEX_EMBEDDING_DIMENSIONS = 256;

const GRPC: Record<number, { code: number; name: string; message: string }> = {
  400: { code: 3, name: 'Bad Request', message: 'Request is invalid' },
  401: { code: 16, name: 'Unauthorized', message: 'The token is invalid' },
  403: { code: 7, name: 'Forbidden', message: 'Permission denied' },
  404: { code: 5, name: 'Not Found', message: 'Not found' },
  429: {
    code: 8,
    name: 'Too Many Requests',
    message: 'ai.textGenerationCompletionSessionsCount.count gauge quota limit exceed: allowed 10 requests',
  },
  500: { code: 13, name: 'Internal Server Error', message: 'Internal error' },
  503: { code: 14, name: 'Service Unavailable', message: 'Service is unavailable, try again later' },
  504: { code: 4, name: 'Gateway Timeout', message: 'Deadline exceeded' },
};

function grpcOf(status: number): { code: number; name: string; message: string } {
  return GRPC[status] ?? { code: status >= 500 ? 13 : 3, name: `HTTP ${status}`, message: `Upstream error ${status}` };
}

function errorObject(status: number, message?: string): JsonObject {
  const d = grpcOf(status);
  return {
    error: { grpcCode: d.code, httpCode: status, message: message ?? d.message, httpStatus: d.name, details: [] },
  };
}

export function yandexError(status: number, message?: string, headers: Record<string, string> = {}): WireReply {
  return jsonReply(status, errorObject(status, message), { 'content-type': 'application/json', ...headers });
}

const dialect: FaultDialect = {
  errorReply(fault: HttpFault): WireReply {
    const headers = { ...retryAfterHeader(fault), ...(fault.headers ?? {}) };
    if (fault.rawBody !== undefined)
      return { status: fault.status, headers: { 'content-type': 'application/json', ...headers }, body: fault.rawBody };
    if (fault.errorType === 'grpc') {
      const d = grpcOf(fault.status);
      return jsonReply(
        fault.status,
        { code: d.code, message: fault.message ?? d.message, details: [] },
        { 'content-type': 'application/json', ...headers },
      );
    }
    return yandexError(fault.status, fault.message, headers);
  },
  streamErrorStatus: 500,
  streamErrorFrame: (fault: StreamErrorFault) => `${JSON.stringify(errorObject(fault.status ?? 500, fault.message))}\n`,
  malformedFrame: () => '{"result":{"alternatives":[{"message":{"role":"assistant","text":"tru\n',
  invalidJsonBody: () => '{"result":{"alternatives":',
};

export function yandexStatus(finish: FinishKind): string {
  return {
    stop: 'ALTERNATIVE_STATUS_FINAL',
    length: 'ALTERNATIVE_STATUS_TRUNCATED_FINAL',
    tool_calls: 'ALTERNATIVE_STATUS_TOOL_CALLS',
    content_filter: 'ALTERNATIVE_STATUS_CONTENT_FILTER',
  }[finish];
}

/** ContentUsage with int64 strings, as the API sends them. */
export function yandexUsage(u: UsageSpec): JsonObject {
  return {
    inputTextTokens: String(u.input),
    completionTokens: String(u.output),
    totalTokens: String(u.input + u.output),
    completionTokensDetails: { reasoningTokens: String(u.reasoning ?? 0) },
  };
}

/** Text the fake counts as input: every message's text and tool result contents, joined by spaces. */
export function yandexInputText(body: JsonObject): string {
  const out: string[] = [];
  for (const raw of asArray(body.messages) ?? []) {
    const m = asObject(raw) ?? {};
    const text = asString(m.text);
    if (text) out.push(text);
    for (const r of asArray(asObject(m.toolResultList)?.toolResults) ?? []) {
      const content = asString(asObject(asObject(r)?.functionResult)?.content);
      if (content) out.push(content);
    }
  }
  return out.join(' ');
}

function lastUserText(body: JsonObject): string {
  const users = (asArray(body.messages) ?? []).map(asObject).filter((m) => m?.role === 'user' && m.text !== undefined);
  return asString(users[users.length - 1]?.text) ?? '';
}

/** Why a completion body is not one the real API accepts (undefined: it is). */
function invalidCompletion(body: JsonObject): string | undefined {
  const messages = asArray(body.messages);
  if (!messages || messages.length === 0) return 'messages: must not be empty';
  for (const [i, raw] of messages.entries()) {
    const m = asObject(raw);
    if (!m || !['system', 'user', 'assistant'].includes(asString(m.role) ?? ''))
      return `messages[${i}].role: invalid role`;
    const kinds = ['text', 'toolCallList', 'toolResultList'].filter((k) => m[k] !== undefined);
    if (kinds.length !== 1) return `messages[${i}]: exactly one of text, toolCallList, toolResultList is required`;
    for (const c of asArray(asObject(m.toolCallList)?.toolCalls) ?? []) {
      if (asObject(asObject(asObject(c)?.functionCall)?.arguments) === undefined)
        return `messages[${i}].toolCallList: functionCall.arguments must be an object`;
    }
  }
  const options = asObject(body.completionOptions) ?? {};
  if (options.maxTokens !== undefined && !(typeof options.maxTokens === 'string' && /^\d+$/.test(options.maxTokens)))
    return 'completionOptions.maxTokens: an int64 string is expected';
  const t = options.temperature;
  if (t !== undefined && (typeof t !== 'number' || t < 0 || t > 1))
    return 'completionOptions.temperature: must be in [0, 1]';
  if (body.jsonObject !== undefined && body.jsonSchema !== undefined) return 'only one of jsonObject, jsonSchema';
  return undefined;
}

function alternative(a: ResolvedAnswer, text: string, status: string, withTools: boolean): JsonObject {
  const message: JsonObject = { role: 'assistant' };
  if (withTools && a.toolCalls.length > 0)
    message.toolCallList = {
      toolCalls: a.toolCalls.map((t) => ({ functionCall: { name: t.name, arguments: t.arguments } })),
    };
  else message.text = text;
  return { message, status };
}

export class FakeYandex extends ScriptedFake {
  private constructor(private readonly options: FakeYandexOptions) {
    super();
  }

  static async start(options: FakeYandexOptions = {}): Promise<FakeYandex> {
    const fake = new FakeYandex(options);
    await fake.listen();
    return fake;
  }

  get folderId(): string {
    return this.options.folderId ?? 'b1gtestfolder';
  }

  /** The auth / folder error for a request, or undefined when it may proceed. */
  private refuse(rec: RecordedRequest, uri: string | undefined, scheme: 'gpt' | 'emb'): WireReply | undefined {
    const auth = asString(rec.headers.authorization) ?? '';
    const key = /^Api-Key (.+)$/.exec(auth)?.[1];
    const token = /^Bearer (.+)$/.exec(auth)?.[1];
    const keyOk = key !== undefined && key === (this.options.apiKey ?? 'yandex-test-key');
    const tokenOk = token !== undefined && this.options.iamToken !== undefined && token === this.options.iamToken;
    if (!keyOk && !tokenOk)
      return yandexError(401, key !== undefined ? `Unknown api key '${key.slice(0, 4)}…'` : undefined);
    if (rec.headers['x-folder-id'] !== this.folderId)
      return yandexError(
        403,
        `Permission to [resource-manager.folder ${asString(rec.headers['x-folder-id']) ?? ''}] denied`,
      );
    if (!uri?.startsWith(`${scheme}://${this.folderId}/`))
      return yandexError(403, `Permission to [resource-manager.folder of ${uri ?? '(no modelUri)'}] denied`);
    return undefined;
  }

  protected async handle(rec: RecordedRequest, ex: Exchange): Promise<void> {
    if (rec.method === 'POST' && rec.path === '/foundationModels/v1/completion') return this.completion(rec, ex);
    if (rec.method === 'POST' && rec.path === '/foundationModels/v1/textEmbedding') return this.embedding(rec, ex);
    return ex.send(yandexError(404, `Method not found: ${rec.method} ${rec.path}`));
  }

  private async completion(rec: RecordedRequest, ex: Exchange): Promise<void> {
    const uri = asString(rec.body.modelUri);
    const refused = this.refuse(rec, uri, 'gpt');
    if (refused) return ex.send(refused);
    if (rec.jsonError) return ex.send(yandexError(400, `Invalid JSON: ${rec.jsonError}`));
    const invalid = invalidCompletion(rec.body);
    if (invalid) return ex.send(yandexError(400, invalid));

    const scenario = this.take('chat');
    rec.scenario = scenario;
    const base = this.nextId();
    const answer = resolveAnswer(scenario, {
      inputText: yandexInputText(rec.body),
      lastUserText: lastUserText(rec.body),
      toolId: (i) => `call_${base}_${i}`,
    });
    const hasRaw = 'rawUsage' in scenario;
    if (answer.usage && !hasRaw) rec.usage = answer.usage;
    const usage = hasRaw ? scenario.rawUsage : answer.usage ? yandexUsage(answer.usage) : undefined;
    const modelVersion = scenario.model ?? '23.10.2024';
    const status = scenario.rawFinish ?? yandexStatus(answer.finish);
    const result = (alternatives: JsonObject[], u: unknown): JsonObject => {
      const r: JsonObject = { alternatives };
      if (u !== undefined) r.usage = u;
      r.modelVersion = modelVersion;
      return { result: r };
    };
    const json = { 'content-type': 'application/json' };
    const stream = asObject(rec.body.completionOptions)?.stream === true;
    let plan: Plan;
    if (!stream) {
      plan = {
        kind: 'json',
        reply: jsonReply(200, result([alternative(answer, answer.text, status, true)], usage), json),
      };
    } else {
      const input = answer.usage?.input ?? 0;
      const frames: string[] = [];
      let sofar = '';
      const pieces = splitText(answer.text, answer.chunkSize);
      pieces.forEach((piece, i) => {
        sofar += piece;
        const partial = {
          inputTextTokens: String(input),
          completionTokens: String(i + 1),
          totalTokens: String(input + i + 1),
        };
        frames.push(
          `${JSON.stringify(result([alternative(answer, sofar, 'ALTERNATIVE_STATUS_PARTIAL', false)], hasRaw ? undefined : partial))}\n`,
        );
      });
      frames.push(`${JSON.stringify(result([alternative(answer, sofar, status, true)], usage))}\n`);
      plan = { kind: 'sse', headers: json, frames, terminalFrom: frames.length - 1 };
    }
    return this.play(ex, scenario, plan, dialect);
  }

  private async embedding(rec: RecordedRequest, ex: Exchange): Promise<void> {
    const uri = asString(rec.body.modelUri);
    const refused = this.refuse(rec, uri, 'emb');
    if (refused) return ex.send(refused);
    if (rec.jsonError) return ex.send(yandexError(400, `Invalid JSON: ${rec.jsonError}`));
    const model = /^emb:\/\/[^/]+\/([^/]+)\/latest$/.exec(uri ?? '')?.[1];
    if (model !== 'text-search-doc' && model !== 'text-search-query')
      return ex.send(yandexError(404, `Model ${uri ?? ''} not found`));
    const text = asString(rec.body.text);
    if (text === undefined || text === '') return ex.send(yandexError(400, 'text: must not be empty'));
    const scenario = this.take('embeddings');
    rec.scenario = scenario;
    const tokens = scenario.usage ? scenario.usage.input : fakeTokenCount(text);
    rec.usage = { input: tokens, output: 0 };
    const vector = Array.from(fakeEmbedding(text, YANDEX_EMBEDDING_DIMENSIONS));
    const plan: Plan = {
      kind: 'json',
      reply: jsonReply(
        200,
        { embedding: vector, numTokens: String(tokens), modelVersion: '06.12.2023' },
        {
          'content-type': 'application/json',
        },
      ),
    };
    return this.play(ex, scenario, plan, dialect);
  }
}
