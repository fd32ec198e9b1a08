/** Gemini error bodies `{error:{code,message,status,details}}` (an array of them on stream endpoints) → ProviderError. */
import { ProviderError } from '../types';
import {
  errorKindForStatus,
  fallbackErrorMessage,
  parseDurationSeconds,
  providerErrorFor,
} from '../http/upstream-errors';
import { asArray, asNumber, asRecord, asString, JsonRecord, parseJson } from '../http/wire-json';

export interface GeminiErrorInfo {
  code: number | undefined;
  message: string;
  status: string | undefined;
  details: JsonRecord[];
}

export function readGeminiError(raw: unknown): GeminiErrorInfo | undefined {
  const root = Array.isArray(raw) ? raw[0] : raw;
  const error = asRecord(asRecord(root)?.error);
  const message = asString(error?.message)?.trim();
  if (!error || message === undefined || message === '') return undefined;
  return {
    code: asNumber(error.code),
    message,
    status: asString(error.status),
    details: asArray(error.details)
      .map(asRecord)
      .filter((d): d is JsonRecord => d !== undefined),
  };
}

function detailOfType(info: GeminiErrorInfo, type: string): JsonRecord | undefined {
  return info.details.find((d) => d['@type'] === `type.googleapis.com/google.rpc.${type}`);
}

/** google.rpc.RetryInfo.retryDelay ("41s") in whole seconds. */
export function geminiRetryDelaySeconds(info: GeminiErrorInfo): number | undefined {
  const delay = asString(detailOfType(info, 'RetryInfo')?.retryDelay);
  return delay === undefined ? undefined : parseDurationSeconds(delay);
}

/** Gemini answers a bad API key with 400 INVALID_ARGUMENT; it is the gateway's credential, not the caller's request. */
function isApiKeyError(info: GeminiErrorInfo): boolean {
  const reason = asString(detailOfType(info, 'ErrorInfo')?.reason);
  return reason === 'API_KEY_INVALID' || reason === 'API_KEY_SERVICE_BLOCKED';
}

export function mapGeminiError(
  status: number,
  body: string,
  headers: Record<string, string>,
  nowMs?: number,
): ProviderError {
  const parsed = parseJson(body);
  const info = parsed.ok ? readGeminiError(parsed.value) : undefined;
  if (!info) return providerErrorFor({ status, headers, nowMs, message: fallbackErrorMessage(status, body) });
  return providerErrorFor({
    status,
    headers,
    nowMs,
    message: info.message,
    retryAfterSeconds: geminiRetryDelaySeconds(info),
    kind: isApiKeyError(info) ? 'auth' : undefined,
  });
}

/** An `{error: ...}` object arriving as an SSE data payload on a 200 stream. */
export function mapGeminiStreamError(payload: unknown): ProviderError {
  const info = readGeminiError(payload);
  const kind = info?.code !== undefined ? errorKindForStatus(info.code) : 'upstream';
  const retryAfter = kind === 'rate_limited' && info ? geminiRetryDelaySeconds(info) : undefined;
  return new ProviderError(kind, info?.message ?? 'Upstream stream reported an error', info?.code, retryAfter);
}
