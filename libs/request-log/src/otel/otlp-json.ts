import type { RequestLogEntity } from '../entities/request-log.entity';

/** OTLP/JSON (ExportTraceServiceRequest) shapes: ids are hex, 64-bit integers are decimal strings. */
export type OtlpValue =
  { stringValue: string } | { intValue: string } | { doubleValue: number } | { boolValue: boolean };
export interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: OtlpAttribute[];
  status: { code: number; message?: string };
}

/** SPAN_KIND_SERVER: the span is the gateway serving the request */
const SPAN_KIND_SERVER = 2;
const STATUS_OK = 1;
const STATUS_ERROR = 2;

/** gen_ai.operation.name of each endpoint kind (GenAI semantic conventions). */
function operationOf(endpoint: string): string {
  if (endpoint.includes('embeddings') || endpoint.includes('ingestion')) return 'embeddings';
  if (endpoint.includes('rerank')) return 'rerank';
  if (endpoint.includes('images')) return 'generate_content';
  if (endpoint.includes('search')) return 'retrieval';
  if (endpoint === '/v1/chat/completions' || endpoint === '/api/v1/chat' || endpoint === '/v1/messages') return 'chat';
  return 'generate_content';
}

function attr(key: string, v: string | number | boolean | null, int = true): OtlpAttribute | null {
  if (v === null) return null;
  if (typeof v === 'string') return { key, value: { stringValue: v } };
  if (typeof v === 'boolean') return { key, value: { boolValue: v } };
  return { key, value: int && Number.isInteger(v) ? { intValue: String(v) } : { doubleValue: v } };
}

function nanos(ms: number): string {
  return `${BigInt(Math.round(ms)) * 1_000_000n}`;
}

/** The span of one recorded call: GenAI attributes plus the gateway's own. */
export function spanOf(e: RequestLogEntity, traceId: string, spanId: string): OtlpSpan {
  const operation = operationOf(e.endpoint);
  const attributes = [
    attr('gen_ai.operation.name', operation),
    attr('gen_ai.system', e.provider),
    attr('gen_ai.request.model', e.model),
    attr('gen_ai.response.model', e.servedModel),
    attr('gen_ai.usage.input_tokens', e.inputTokens),
    attr('gen_ai.usage.output_tokens', e.outputTokens),
    attr('http.request.method', e.method),
    attr('http.route', e.endpoint),
    attr('http.response.status_code', e.status),
    attr('error.type', e.errorCode),
    attr('gateway.request_id', e.id),
    attr('gateway.team_id', e.teamId),
    attr('gateway.api_key_prefix', e.keyPrefix),
    attr('gateway.cost_rub', e.costMicro / 1_000_000, false),
    attr('gateway.attempts', e.attempts),
    attr('gateway.stream', e.stream),
    attr('gateway.ttft_ms', e.ttftMs),
  ].filter((a): a is OtlpAttribute => a !== null);
  const error = e.status >= 400 || e.errorCode !== null;
  return {
    traceId,
    spanId,
    name: e.model ? `${operation} ${e.model}` : operation,
    kind: SPAN_KIND_SERVER,
    startTimeUnixNano: nanos(e.createdAt),
    endTimeUnixNano: nanos(e.createdAt + e.latencyMs),
    attributes,
    status: error ? { code: STATUS_ERROR, message: e.errorCode ?? `HTTP ${e.status}` } : { code: STATUS_OK },
  };
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$/;

/** The trace and parent span of a W3C `traceparent` header (version 00; all-zero ids are invalid), or null. */
export function parseTraceparent(header: string | undefined): { traceId: string; spanId: string } | null {
  const m = header ? TRACEPARENT.exec(header.trim().toLowerCase()) : null;
  if (!m || /^0+$/.test(m[1]) || /^0+$/.test(m[2])) return null;
  return { traceId: m[1], spanId: m[2] };
}

/** The ExportTraceServiceRequest body of a batch. */
export function traceRequest(spans: OtlpSpan[], serviceName: string): unknown {
  return {
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: serviceName } }] },
        scopeSpans: [{ scope: { name: 'model-gateway.request-log' }, spans }],
      },
    ],
  };
}
