/** Non-2xx answers of the GigaChat API (`{status, message}`, also on its OAuth endpoint) → ProviderError. */
import { fallbackErrorMessage, providerErrorFor } from '../http/upstream-errors';
import { asRecord, asString, parseJson } from '../http/wire-json';
import { ProviderError } from '../types';

/** The message of GigaChat's `{"status": 422, "message": "…"}` (or an OAuth `{code, message}`). */
export function readGigaChatError(body: string): string | undefined {
  const parsed = parseJson(body);
  const root = parsed.ok ? asRecord(parsed.value) : undefined;
  const message = asString(root?.message) ?? asString(asRecord(root?.error)?.message) ?? asString(root?.error);
  return message === undefined || message.trim() === '' ? undefined : message;
}

export function mapGigaChatError(
  status: number,
  body: string,
  headers: Record<string, string>,
  nowMs?: number,
): ProviderError {
  const message = readGigaChatError(body);
  return providerErrorFor({
    status,
    headers,
    nowMs,
    message: message !== undefined ? `GigaChat: ${message}` : fallbackErrorMessage(status, body),
    param: null,
  });
}
