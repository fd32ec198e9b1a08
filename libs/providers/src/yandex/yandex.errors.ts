/**
 * Yandex AI Studio error bodies → ProviderError. Two shapes reach a client:
 * - the API gateway's `{"error": {"grpcCode", "httpCode", "message", "httpStatus", "details"}}`
 *   (also sent as a line of a 200 stream that fails mid-way);
 * - the gRPC gateway's `{"code", "message", "details"}` (`code` a gRPC status number).
 * The HTTP status decides the kind; the gRPC code decides it when the status says little (a stream
 * line, a 200) or names the caller's fault for what is the gateway's credential.
 */
import { ProviderError, ProviderErrorKind } from '../types';
import {
  errorKindForStatus,
  fallbackErrorMessage,
  parseDurationSeconds,
  providerErrorFor,
} from '../http/upstream-errors';
import { asArray, asNumber, asRecord, asString, parseJson } from '../http/wire-json';

export interface YandexErrorInfo {
  message: string;
  grpcCode: number | undefined;
  httpCode: number | undefined;
  retryDelaySeconds: number | undefined;
}

/** gRPC status codes → error kinds (google.rpc.Code). */
const GRPC_KINDS: Readonly<Record<number, ProviderErrorKind>> = {
  3: 'invalid_request', // INVALID_ARGUMENT
  4: 'timeout', // DEADLINE_EXCEEDED
  5: 'invalid_request', // NOT_FOUND (a model URI the folder cannot reach)
  7: 'auth', // PERMISSION_DENIED
  8: 'rate_limited', // RESOURCE_EXHAUSTED
  11: 'invalid_request', // OUT_OF_RANGE
  13: 'upstream', // INTERNAL
  14: 'upstream', // UNAVAILABLE
  16: 'auth', // UNAUTHENTICATED
};

function retryDelay(details: unknown[]): number | undefined {
  for (const raw of details) {
    const delay = asString(asRecord(raw)?.retryDelay);
    if (delay !== undefined) return parseDurationSeconds(delay);
  }
  return undefined;
}

export function readYandexError(raw: unknown): YandexErrorInfo | undefined {
  const root = asRecord(raw);
  if (!root) return undefined;
  const nested = asRecord(root.error);
  const error = nested ?? root;
  const message = (asString(error.message) ?? (typeof root.error === 'string' ? root.error : undefined))?.trim();
  if (message === undefined || message === '') return undefined;
  return {
    message,
    grpcCode: asNumber(nested ? error.grpcCode : error.code),
    httpCode: asNumber(error.httpCode),
    retryDelaySeconds: retryDelay(asArray(error.details)),
  };
}

function kindFor(status: number, info: YandexErrorInfo): ProviderErrorKind {
  const byGrpc = info.grpcCode !== undefined ? GRPC_KINDS[info.grpcCode] : undefined;
  // a 400/404 saying the key or folder is not allowed is the gateway's credential, not the caller's request
  if (byGrpc === 'auth' || (byGrpc === 'rate_limited' && status !== 429)) return byGrpc;
  if (status >= 200 && status < 300) return byGrpc ?? errorKindForStatus(info.httpCode ?? 500);
  return errorKindForStatus(status);
}

export function mapYandexError(
  status: number,
  body: string,
  headers: Record<string, string>,
  nowMs?: number,
): ProviderError {
  const parsed = parseJson(body);
  const info = parsed.ok ? readYandexError(parsed.value) : undefined;
  if (!info) return providerErrorFor({ status, headers, nowMs, message: fallbackErrorMessage(status, body) });
  return providerErrorFor({
    status,
    headers,
    nowMs,
    message: info.message,
    kind: kindFor(status, info),
    retryAfterSeconds: info.retryDelaySeconds,
  });
}

/** An `{"error": …}` line on a 200 stream. */
export function mapYandexStreamError(payload: unknown): ProviderError {
  const info = readYandexError(payload);
  if (!info) return new ProviderError('upstream', 'Upstream stream reported an error');
  const kind = kindFor(200, info);
  return new ProviderError(
    kind,
    info.message,
    info.httpCode,
    kind === 'rate_limited' ? info.retryDelaySeconds : undefined,
  );
}
