/** Non-2xx answers of OpenAI-compatible servers → ProviderError. */
import { ProviderError } from '../types';
import { fallbackErrorMessage, providerErrorFor } from '../http/upstream-errors';
import { asRecord, asString, parseJson } from '../http/wire-json';

interface OpenAiErrorInfo {
  message: string;
  param: string | null;
}

/**
 * Reads `{error:{message,param}}` (OpenAI, DeepSeek, OpenRouter, Ollama), `{error:"..."}` (older
 * Ollama), `{object:"error",message}` (vLLM) and `{detail}` (FastAPI-based servers).
 */
export function readOpenAiError(body: string): OpenAiErrorInfo | undefined {
  const parsed = parseJson(body);
  const root = parsed.ok ? asRecord(parsed.value) : undefined;
  if (!root) return undefined;
  const error = asRecord(root.error);
  const message = asString(error?.message) ?? asString(root.error) ?? asString(root.message) ?? asString(root.detail);
  if (message === undefined || message.trim() === '') return undefined;
  return { message, param: asString(error?.param) ?? asString(root.param) ?? null };
}

export function mapOpenAiError(
  status: number,
  body: string,
  headers: Record<string, string>,
  nowMs?: number,
): ProviderError {
  const info = readOpenAiError(body);
  return providerErrorFor({
    status,
    headers,
    nowMs,
    message: info?.message ?? fallbackErrorMessage(status, body),
    param: info?.param ?? null,
  });
}
