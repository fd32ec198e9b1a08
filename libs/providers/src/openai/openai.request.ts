/** Canonical request → OpenAI-compatible `POST {baseUrl}/chat/completions` (OpenAI, DeepSeek, OpenRouter, vLLM, Ollama). */
import { CanonicalChatRequest, CHAT_CONTROLS, ChatMessage, ProviderConnection } from '../types';
import { joinUrl } from '../http/urls';

export interface UpstreamHttpRequest {
  url: string;
  headers: Record<string, string>;
  body: unknown;
}

/** The canonical request is the OpenAI body; only the wire-level extras differ. */
export type OpenAiChatBody = Omit<CanonicalChatRequest, 'stream'> & {
  max_completion_tokens?: number;
  stream?: true;
  stream_options?: { include_usage: true };
};

export function openAiHeaders(conn: ProviderConnection): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  // local servers (Ollama, vLLM) may run without a key
  if (conn.apiKey !== '') headers.authorization = `Bearer ${conn.apiKey}`;
  return headers;
}

/**
 * OpenAI's own API deprecated `max_tokens` and rejects it for reasoning models (o-series, gpt-5),
 * while `max_completion_tokens` works for every current OpenAI model. Other OpenAI-compatible
 * servers (DeepSeek, vLLM, Ollama, OpenRouter) all accept `max_tokens`, and some of them know
 * nothing else, so it is kept there.
 */
export function usesMaxCompletionTokens(baseUrl: string): boolean {
  try {
    return new URL(baseUrl).hostname.toLowerCase() === 'api.openai.com';
  } catch {
    return false;
  }
}

/** Copy only the canonical fields of a message (nothing else leaks upstream). */
export function toOpenAiMessage(message: ChatMessage): ChatMessage {
  const out: ChatMessage = { role: message.role, content: message.content };
  if (message.name !== undefined) out.name = message.name;
  if (message.tool_calls !== undefined && message.tool_calls.length > 0) {
    out.tool_calls = message.tool_calls.map((call) => ({
      id: call.id,
      type: 'function',
      function: { name: call.function.name, arguments: call.function.arguments },
    }));
  }
  if (message.tool_call_id !== undefined) out.tool_call_id = message.tool_call_id;
  return out;
}

export function buildOpenAiChatBody(req: CanonicalChatRequest, conn: ProviderConnection): OpenAiChatBody {
  const body: OpenAiChatBody = { model: req.model, messages: req.messages.map(toOpenAiMessage) };
  if (req.max_tokens !== undefined) {
    if (usesMaxCompletionTokens(conn.baseUrl)) body.max_completion_tokens = req.max_tokens;
    else body.max_tokens = req.max_tokens;
  }
  if (req.temperature !== undefined) body.temperature = req.temperature;
  if (req.top_p !== undefined) body.top_p = req.top_p;
  if (req.stop !== undefined) body.stop = req.stop;
  if (req.seed !== undefined) body.seed = req.seed;
  if (req.user !== undefined) body.user = req.user;
  if (req.n !== undefined) body.n = req.n;
  // tool_choice / parallel_tool_calls without tools is a 400 on OpenAI
  if (req.tools !== undefined && req.tools.length > 0) {
    body.tools = req.tools;
    if (req.tool_choice !== undefined) body.tool_choice = req.tool_choice;
    if (req.parallel_tool_calls !== undefined) body.parallel_tool_calls = req.parallel_tool_calls;
  }
  if (req.response_format !== undefined) body.response_format = req.response_format;
  // controls the pipeline let through for this model are OpenAI's own fields
  for (const key of CHAT_CONTROLS) if (req[key] !== undefined) Object.assign(body, { [key]: req[key] });
  if (req.stream === true) {
    body.stream = true;
    body.stream_options = { include_usage: true };
  }
  return body;
}

export function buildOpenAiChatRequest(req: CanonicalChatRequest, conn: ProviderConnection): UpstreamHttpRequest {
  return {
    url: joinUrl(conn.baseUrl, 'chat/completions'),
    headers: openAiHeaders(conn),
    body: buildOpenAiChatBody(req, conn),
  };
}
