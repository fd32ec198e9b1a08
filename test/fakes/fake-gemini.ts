/**
 * Fake Gemini upstream (test-only): POST /v1beta/models/{model}:generateContent and
 * :streamGenerateContent (`?alt=sse` → SSE with CRLF-terminated events like the real API; without
 * alt=sse → a streamed JSON array), GET /v1beta/models. Key in `x-goog-api-key` (or `?key=`).
 * Errors are `{"error":{"code","message","status"[,"details"]}}`.
 */
import { Exchange, FaultDialect, Plan, RecordedRequest, ScriptedFake, WireReply, jsonReply } from './fake-http';
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
  resolveAnswer,
  splitText,
} from './scenario';

export interface FakeGeminiOptions {
  /** when set, the key must equal it: a wrong key is a 400 API_KEY_INVALID (as the real API answers); a missing key is always a 403 */
  apiKey?: string;
  /** model ids (without 'models/') listed by GET /v1beta/models */
  models?: string[];
}

const STATUS_NAMES: Record<number, { status: string; message: string }> = {
  400: { status: 'INVALID_ARGUMENT', message: 'Request contains an invalid argument.' },
  401: {
    status: 'UNAUTHENTICATED',
    message:
      'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
  },
  403: { status: 'PERMISSION_DENIED', message: 'The caller does not have permission' },
  404: { status: 'NOT_FOUND', message: 'Requested entity was not found.' },
  429: {
    status: 'RESOURCE_EXHAUSTED',
    message:
      'You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.',
  },
  500: {
    status: 'INTERNAL',
    message:
      'An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting',
  },
  503: { status: 'UNAVAILABLE', message: 'The model is overloaded. Please try again later.' },
  504: { status: 'DEADLINE_EXCEEDED', message: 'Deadline expired before operation could complete.' },
};

function statusOf(code: number): { status: string; message: string } {
  return (
    STATUS_NAMES[code] ?? { status: code >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT', message: `Upstream error ${code}.` }
  );
}

function errorObject(code: number, message: string, status: string, details?: unknown[]): JsonObject {
  const error: JsonObject = { code, message, status };
  if (details) error.details = details;
  return { error };
}

function geminiError(
  code: number,
  message?: string,
  status?: string,
  details?: unknown[],
  headers: Record<string, string> = {},
): WireReply {
  const d = statusOf(code);
  return jsonReply(code, errorObject(code, message ?? d.message, status ?? d.status, details), {
    'content-type': 'application/json; charset=UTF-8',
    ...headers,
  });
}

function dialect(mode: StreamMode): FaultDialect {
  return {
    errorReply(fault: HttpFault): WireReply {
      const headers = fault.headers ?? {};
      if (fault.rawBody !== undefined)
        return {
          status: fault.status,
          headers: { 'content-type': 'application/json; charset=UTF-8', ...headers },
          body: fault.rawBody,
        };
      const retry = fault.retryAfter === undefined ? (fault.status === 429 ? 1 : null) : fault.retryAfter;
      const details =
        retry === null ? undefined : [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${retry}s` }];
      return geminiError(fault.status, fault.message, fault.errorType, details, headers);
    },
    streamErrorStatus: 503,
    streamErrorFrame(fault: StreamErrorFault): string {
      const code = fault.status ?? 503;
      const d = statusOf(code);
      const payload = errorObject(code, fault.message ?? d.message, fault.errorType ?? d.status);
      return mode === 'sse' ? sseFrame(payload) : `,\r\n${JSON.stringify(payload)}\r\n]`;
    },
    malformedFrame: () =>
      mode === 'sse'
        ? 'data: {"candidates":[{"content":{"parts":[{"text":"tru\r\n\r\n'
        : ',\r\n{"candidates":[{"content":{"parts":[{"text":"tru',
    invalidJsonBody: () => '{"candidates":[{"content":',
  };
}

type StreamMode = 'sse' | 'json-array' | 'none';

function sseFrame(payload: unknown): string {
  return `data: ${JSON.stringify(payload)}\r\n\r\n`;
}

/** Gemini usageMetadata for a UsageSpec (candidatesTokenCount excludes thoughts). */
export function geminiUsage(u: UsageSpec): JsonObject {
  const reasoning = u.reasoning ?? 0;
  const meta: JsonObject = {
    promptTokenCount: u.input,
    candidatesTokenCount: Math.max(0, u.output - reasoning),
    totalTokenCount: u.input + u.output,
  };
  if (u.cacheRead) meta.cachedContentTokenCount = u.cacheRead;
  meta.promptTokensDetails = [{ modality: 'TEXT', tokenCount: u.input }];
  if (reasoning > 0) meta.thoughtsTokenCount = reasoning;
  return meta;
}

export function geminiFinishReason(finish: FinishKind): string {
  return { stop: 'STOP', length: 'MAX_TOKENS', tool_calls: 'STOP', content_filter: 'SAFETY' }[finish];
}

function partsText(parts: unknown): string[] {
  return (asArray(parts) ?? []).map((p) => asString(asObject(p)?.text) ?? '').filter((t) => t.length > 0);
}

/** Text the fake counts as input: systemInstruction text parts plus every content's text parts, joined by spaces. */
export function geminiInputText(body: JsonObject): string {
  const system = partsText(asObject(body.systemInstruction ?? body.system_instruction)?.parts);
  const contents = (asArray(body.contents) ?? []).flatMap((c) => partsText(asObject(c)?.parts));
  return [...system, ...contents].join(' ');
}

/** Text parts of the last content with role "user" (or no role). */
export function geminiLastUserText(body: JsonObject): string {
  const contents = (asArray(body.contents) ?? []).map(asObject).filter((c): c is JsonObject => c !== undefined);
  const last = [...contents].reverse().find((c) => c.role === undefined || c.role === 'user');
  return last ? partsText(last.parts).join(' ') : '';
}

interface Meta {
  responseId: string;
  modelVersion: string;
  finishReason: string;
  usage: JsonObject | undefined;
  /** usageMetadata for intermediate stream chunks */
  partialUsage: JsonObject | undefined;
}

export class FakeGemini extends ScriptedFake {
  private constructor(private readonly options: FakeGeminiOptions) {
    super();
  }

  static async start(options: FakeGeminiOptions = {}): Promise<FakeGemini> {
    const fake = new FakeGemini(options);
    await fake.listen();
    return fake;
  }

  protected async handle(rec: RecordedRequest, ex: Exchange): Promise<void> {
    const listing = rec.method === 'GET' && /^\/v1(beta|alpha)?\/models$/.test(rec.path);
    const call = /^\/v1(?:beta|alpha)?\/models\/([^/:]+):(generateContent|streamGenerateContent)$/.exec(rec.path);
    if (!listing && !(call && rec.method === 'POST')) {
      return ex.send(
        geminiError(404, `Method not found or model path invalid: ${rec.method} ${rec.path}`, 'NOT_FOUND'),
      );
    }
    const key = asString(rec.headers['x-goog-api-key']) ?? rec.query.key;
    if (!key) {
      return ex.send(
        geminiError(
          403,
          "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
          'PERMISSION_DENIED',
        ),
      );
    }
    if (this.options.apiKey !== undefined && key !== this.options.apiKey) {
      return ex.send(
        geminiError(400, 'API key not valid. Please pass a valid API key.', 'INVALID_ARGUMENT', [
          {
            '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
            reason: 'API_KEY_INVALID',
            domain: 'googleapis.com',
            metadata: { service: 'generativelanguage.googleapis.com' },
          },
        ]),
      );
    }
    if (listing || !call) {
      const models = (this.options.models ?? ['gemini-2.5-flash', 'gemini-2.5-pro']).map((id) => ({
        name: `models/${id}`,
        version: '001',
        displayName: id,
        supportedGenerationMethods: ['generateContent', 'countTokens'],
      }));
      return ex.send(jsonReply(200, { models }, { 'content-type': 'application/json; charset=UTF-8' }));
    }

    const model = decodeURIComponent(call[1]);
    const mode: StreamMode = call[2] === 'generateContent' ? 'none' : rec.query.alt === 'sse' ? 'sse' : 'json-array';
    if (rec.jsonError)
      return ex.send(geminiError(400, `Invalid JSON payload received. ${rec.jsonError}`, 'INVALID_ARGUMENT'));
    const contents = asArray(rec.body.contents);
    if (!contents || contents.length === 0)
      return ex.send(
        geminiError(400, '* GenerateContentRequest.contents: contents is not specified\n', 'INVALID_ARGUMENT'),
      );
    for (const c of contents) {
      const role = asObject(c)?.role;
      if (role !== undefined && role !== 'user' && role !== 'model')
        return ex.send(geminiError(400, 'Please use a valid role: user, model.', 'INVALID_ARGUMENT'));
    }

    const scenario = this.take('chat');
    rec.scenario = scenario;
    const base = this.nextId();
    const answer = resolveAnswer(scenario, {
      inputText: geminiInputText(rec.body),
      lastUserText: geminiLastUserText(rec.body),
      toolId: (i) => `call_${base}_${i}`,
    });
    const hasRaw = 'rawUsage' in scenario;
    if (answer.usage && !hasRaw) rec.usage = answer.usage;
    const full = hasRaw ? asObject(scenario.rawUsage) : answer.usage ? geminiUsage(answer.usage) : undefined;
    const meta: Meta = {
      responseId: scenario.id ?? base,
      modelVersion: scenario.model ?? model,
      finishReason: scenario.rawFinish ?? geminiFinishReason(answer.finish),
      usage: full,
      partialUsage:
        answer.usage && !hasRaw
          ? {
              promptTokenCount: answer.usage.input,
              totalTokenCount: answer.usage.input,
              promptTokensDetails: [{ modality: 'TEXT', tokenCount: answer.usage.input }],
            }
          : undefined,
    };
    const json = { 'content-type': 'application/json; charset=UTF-8' };
    let plan: Plan;
    if (mode === 'none') plan = { kind: 'json', reply: jsonReply(200, response(allParts(answer), meta, true), json) };
    else {
      const chunks = streamChunks(answer, meta);
      const frames =
        mode === 'sse'
          ? chunks.map(sseFrame)
          : chunks.map(
              (c, i) => `${i === 0 ? '[' : ',\r\n'}${JSON.stringify(c)}${i === chunks.length - 1 ? '\r\n]' : ''}`,
            );
      plan = {
        kind: 'sse',
        headers: mode === 'sse' ? { 'content-type': 'text/event-stream' } : json,
        frames,
        terminalFrom: frames.length - 1,
      };
    }
    return this.play(ex, scenario, plan, dialect(mode));
  }
}

function allParts(a: ResolvedAnswer): JsonObject[] {
  const parts: JsonObject[] = [];
  if (a.reasoning !== undefined) parts.push({ text: a.reasoning, thought: true });
  if (a.text !== '' || (a.reasoning === undefined && a.toolCalls.length === 0)) parts.push({ text: a.text });
  for (const t of a.toolCalls) parts.push({ functionCall: { name: t.name, args: t.arguments } });
  return parts;
}

function response(parts: JsonObject[], meta: Meta, last: boolean): JsonObject {
  const candidate: JsonObject = { content: { parts, role: 'model' } };
  if (last) candidate.finishReason = meta.finishReason;
  candidate.index = 0;
  const body: JsonObject = { candidates: [candidate] };
  const usage = last ? meta.usage : meta.partialUsage;
  if (usage) body.usageMetadata = usage;
  body.modelVersion = meta.modelVersion;
  body.responseId = meta.responseId;
  return body;
}

function streamChunks(a: ResolvedAnswer, meta: Meta): JsonObject[] {
  const pieces: JsonObject[][] = [];
  for (const p of splitText(a.reasoning ?? '', a.chunkSize)) pieces.push([{ text: p, thought: true }]);
  for (const p of splitText(a.text, a.chunkSize)) pieces.push([{ text: p }]);
  if (a.toolCalls.length > 0)
    pieces.push(a.toolCalls.map((t) => ({ functionCall: { name: t.name, args: t.arguments } })));
  if (pieces.length === 0) pieces.push([{ text: '' }]);
  return pieces.map((parts, i) => response(parts, meta, i === pieces.length - 1));
}
