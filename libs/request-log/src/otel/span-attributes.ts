import type { Attributes } from '@opentelemetry/api';
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
} from '@opentelemetry/semantic-conventions';
import {
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_SYSTEM,
  ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  GEN_AI_OPERATION_NAME_VALUE_CHAT,
  GEN_AI_OPERATION_NAME_VALUE_EMBEDDINGS,
  GEN_AI_OPERATION_NAME_VALUE_GENERATE_CONTENT,
} from '@opentelemetry/semantic-conventions/incubating';
import type { RequestLogEntity } from '../entities/request-log.entity';

/** gen_ai.operation.name of each endpoint kind (GenAI semantic conventions; rerank and retrieval are the gateway's). */
export function operationOf(endpoint: string): string {
  if (endpoint.includes('embeddings') || endpoint.includes('ingestion')) return GEN_AI_OPERATION_NAME_VALUE_EMBEDDINGS;
  if (endpoint.includes('rerank')) return 'rerank';
  if (endpoint.includes('images')) return GEN_AI_OPERATION_NAME_VALUE_GENERATE_CONTENT;
  if (endpoint.includes('search')) return 'retrieval';
  if (endpoint === '/v1/chat/completions' || endpoint === '/api/v1/chat' || endpoint === '/v1/messages')
    return GEN_AI_OPERATION_NAME_VALUE_CHAT;
  return GEN_AI_OPERATION_NAME_VALUE_GENERATE_CONTENT;
}

/** The span name: "{operation} {model}", as the GenAI conventions name client and server spans. */
export function spanName(e: RequestLogEntity): string {
  const operation = operationOf(e.endpoint);
  return e.model ? `${operation} ${e.model}` : operation;
}

/**
 * The attributes of one recorded call's span: the GenAI semantic conventions (the provider under
 * both `gen_ai.provider.name` and the older `gen_ai.system`, which collectors built before the rename
 * still read), HTTP ones, then the gateway's own under `gateway.*`. Absent values are left out.
 */
export function spanAttributes(e: RequestLogEntity): Attributes {
  const all: Record<string, string | number | boolean | null> = {
    [ATTR_GEN_AI_OPERATION_NAME]: operationOf(e.endpoint),
    [ATTR_GEN_AI_PROVIDER_NAME]: e.provider,
    [ATTR_GEN_AI_SYSTEM]: e.provider,
    [ATTR_GEN_AI_REQUEST_MODEL]: e.model,
    [ATTR_GEN_AI_RESPONSE_MODEL]: e.servedModel,
    [ATTR_GEN_AI_USAGE_INPUT_TOKENS]: e.inputTokens,
    [ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: e.outputTokens,
    [ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS]: e.cacheReadTokens || null,
    [ATTR_HTTP_REQUEST_METHOD]: e.method,
    [ATTR_HTTP_ROUTE]: e.endpoint,
    [ATTR_HTTP_RESPONSE_STATUS_CODE]: e.status,
    [ATTR_ERROR_TYPE]: e.errorCode,
    'gateway.request_id': e.id,
    'gateway.team_id': e.teamId,
    'gateway.api_key_prefix': e.keyPrefix,
    'gateway.cost_rub': e.costMicro / 1_000_000,
    'gateway.attempts': e.attempts,
    'gateway.stream': e.stream,
    'gateway.ttft_ms': e.ttftMs,
  };
  const out: Attributes = {};
  for (const [k, v] of Object.entries(all)) if (v !== null) out[k] = v;
  return out;
}

/** A failed call: an HTTP error status or an error code (a cut stream answered 200 but has one). */
export function isError(e: RequestLogEntity): boolean {
  return e.status >= 400 || e.errorCode !== null;
}
