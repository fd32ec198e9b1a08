import { ApiError } from '@app/common';
import { contentText } from '@app/providers';
import type { ChatMessage, ContentPart, ToolCall } from '@app/providers';

/** (`function` messages are turned into `tool` messages before this check: see legacyMessage) */
const ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool']);

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function bad(message: string, param: string): ApiError {
  return ApiError.badRequest(message, param, 'invalid_value');
}

/** Validates OpenAI chat-completions `messages` and returns canonical messages. Errors name the exact field. */
export function normalizeCompletionMessages(raw: unknown): ChatMessage[] {
  if (!Array.isArray(raw) || raw.length === 0) throw bad('messages must be a non-empty array.', 'messages');
  const legacy = { lastCallId: null as string | null };
  return raw.map((m, i) => normalizeMessage(legacyMessage(m, `messages[${i}]`, legacy), `messages[${i}]`));
}

/**
 * The deprecated function-calling turns, as tool turns: an assistant `function_call` becomes one
 * tool call (id `call_fn_<n>`), and a `function` message (the result, named by `name`) answers
 * the latest of them. Other messages pass unchanged.
 */
function legacyMessage(m: unknown, at: string, state: { lastCallId: string | null }): unknown {
  if (!isRecord(m)) return m;
  if (m.role === 'assistant' && m.function_call !== undefined && m.function_call !== null) {
    const fc = m.function_call;
    if (!isRecord(fc) || typeof fc.name !== 'string' || typeof fc.arguments !== 'string')
      throw bad(`${at}.function_call must be {name, arguments (a JSON string)}.`, `${at}.function_call`);
    if (m.tool_calls !== undefined && m.tool_calls !== null)
      throw bad(`${at}: use either function_call or tool_calls, not both.`, `${at}.function_call`);
    state.lastCallId = `call_fn_${at.replace(/\D/g, '')}`;
    const { function_call: _fc, ...rest } = m;
    void _fc;
    return {
      ...rest,
      tool_calls: [{ id: state.lastCallId, type: 'function', function: { name: fc.name, arguments: fc.arguments } }],
    };
  }
  if (m.role === 'function') {
    if (typeof m.name !== 'string' || m.name === '')
      throw bad(`${at}.name (the function's name) is required for function messages.`, `${at}.name`);
    if (state.lastCallId === null)
      throw bad(`${at}: a function message must follow an assistant message with function_call.`, `${at}.role`);
    const { name: _name, ...rest } = m;
    void _name;
    return { ...rest, role: 'tool', tool_call_id: state.lastCallId };
  }
  return m;
}

function normalizeMessage(m: unknown, at: string): ChatMessage {
  if (!isRecord(m)) throw bad(`${at} must be an object.`, at);
  const role = m.role;
  if (typeof role !== 'string' || !ROLES.has(role))
    throw bad(`${at}.role must be one of system, developer, user, assistant, tool, function.`, `${at}.role`);
  const out: ChatMessage = {
    role: role as ChatMessage['role'],
    content: normalizeContent(m.content, `${at}.content`, role),
  };
  if (m.name !== undefined) {
    if (typeof m.name !== 'string') throw bad(`${at}.name must be a string.`, `${at}.name`);
    out.name = m.name;
  }
  if (role === 'assistant' && m.tool_calls !== undefined && m.tool_calls !== null) {
    if (!Array.isArray(m.tool_calls)) throw bad(`${at}.tool_calls must be an array.`, `${at}.tool_calls`);
    out.tool_calls = m.tool_calls.map((c, j) => normalizeToolCall(c, `${at}.tool_calls[${j}]`));
  }
  if (role === 'tool') {
    if (typeof m.tool_call_id !== 'string' || m.tool_call_id === '')
      throw bad(`${at}.tool_call_id is required for tool messages.`, `${at}.tool_call_id`);
    out.tool_call_id = m.tool_call_id;
  }
  if (out.content === null && !(role === 'assistant' && out.tool_calls?.length))
    throw bad(`${at}.content is required.`, `${at}.content`);
  return out;
}

function normalizeToolCall(c: unknown, at: string): ToolCall {
  if (!isRecord(c) || !isRecord(c.function))
    throw bad(`${at} must be {id, type: "function", function: {name, arguments}}.`, at);
  if (typeof c.id !== 'string') throw bad(`${at}.id must be a string.`, `${at}.id`);
  if (typeof c.function.name !== 'string') throw bad(`${at}.function.name must be a string.`, `${at}.function.name`);
  const args = c.function.arguments;
  if (typeof args !== 'string')
    throw bad(`${at}.function.arguments must be a JSON string.`, `${at}.function.arguments`);
  return { id: c.id, type: 'function', function: { name: c.function.name, arguments: args } };
}

function normalizeContent(content: unknown, at: string, role: string): string | ContentPart[] | null {
  if (content === undefined || content === null) return null;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) throw bad(`${at} must be a string or an array of content parts.`, at);
  return content.map((p, k) => {
    const pat = `${at}[${k}]`;
    if (!isRecord(p)) throw bad(`${pat} must be an object.`, pat);
    if (p.type === 'text') {
      if (typeof p.text !== 'string') throw bad(`${pat}.text must be a string.`, `${pat}.text`);
      return { type: 'text', text: p.text };
    }
    if (p.type === 'image_url') {
      if (role !== 'user') throw bad(`${pat}: images are only allowed in user messages.`, pat);
      const iu = p.image_url;
      const url = isRecord(iu) ? iu.url : undefined;
      if (typeof url !== 'string' || !/^(https?:\/\/|data:image\/)/i.test(url))
        throw bad(`${pat}.image_url.url must be an http(s) URL or a data:image/… URL.`, `${pat}.image_url.url`);
      const detail = isRecord(iu) ? iu.detail : undefined;
      if (detail !== undefined && detail !== 'auto' && detail !== 'low' && detail !== 'high')
        throw bad(`${pat}.image_url.detail must be auto, low or high.`, `${pat}.image_url.detail`);
      return { type: 'image_url', image_url: detail ? { url, detail } : { url } };
    }
    throw bad(`${pat}.type "${String(p.type)}" is not supported (text, image_url).`, `${pat}.type`);
  });
}

/** Image parts across all messages. */
export function imageParts(messages: ChatMessage[]): { url: string }[] {
  const out: { url: string }[] = [];
  for (const m of messages)
    if (Array.isArray(m.content))
      for (const p of m.content) if (p.type === 'image_url') out.push({ url: p.image_url.url });
  return out;
}

/** Text of a message for token counting (images are counted separately). */
export function messageText(m: ChatMessage): string {
  const parts = [contentText(m.content)];
  for (const c of m.tool_calls ?? []) parts.push(c.function.name, c.function.arguments);
  return parts.join('\n');
}

/** REST request → canonical messages: system_prompt, then messages, then prompt (+ images) as the last user turn. */
export function buildRestMessages(input: {
  prompt: string;
  system_prompt?: string;
  messages?: { role: string; content: string }[];
  images: string[];
  json: boolean;
}): ChatMessage[] {
  const out: ChatMessage[] = [];
  const system = [
    input.system_prompt?.trim() ? input.system_prompt : null,
    input.json ? 'Respond only with a valid JSON document.' : null,
  ].filter((s): s is string => s !== null);
  if (system.length) out.push({ role: 'system', content: system.join('\n\n') });
  for (const m of input.messages ?? []) out.push({ role: m.role as 'user' | 'assistant', content: m.content });
  out.push({
    role: 'user',
    content: input.images.length
      ? [
          { type: 'text', text: input.prompt },
          ...input.images.map((url): ContentPart => ({ type: 'image_url', image_url: { url } })),
        ]
      : input.prompt,
  });
  return out;
}

/** JSON mode result: strips a Markdown code fence if the model added one; null when it is not JSON. */
export function extractJsonDocument(text: string): string | null {
  const fenced = /^\s*```(?:json)?\s*\n?([\s\S]*?)\n?```\s*$/i.exec(text);
  const candidate = (fenced ? fenced[1] : text).trim();
  try {
    JSON.parse(candidate);
    return candidate;
  } catch {
    return null;
  }
}
