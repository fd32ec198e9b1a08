/**
 * Canonical (OpenAI-shaped) chat request → GigaChat `POST {base}/chat/completions` body.
 *
 * GigaChat is OpenAI-like with these differences, translated here:
 * - tools are `functions` (name, description, parameters) and tool_choice is `function_call`
 *   ("auto" | "none" | {name}); "required" has no equivalent unless exactly one tool is offered;
 * - an assistant turn that called a tool carries ONE `function_call` whose `arguments` is a JSON
 *   object (not a string): parallel calls become consecutive assistant turns;
 * - a tool result is a `function` message with the function's `name` and a JSON content (a plain
 *   text result is wrapped as `{"result": "…"}`);
 * - there is no `stop`, `seed` or `response_format` (the catalog marks JSON output unsupported, so
 *   the chat pipeline refuses it before any call): a request asking for them is refused, never
 *   silently stripped.
 */
import { joinUrl } from '../http/urls';
import { isRecord } from '../http/wire-json';
import { contentText } from '../message-text';
import { CanonicalChatRequest, ChatMessage, ProviderError } from '../types';

export interface GigaChatFunctionCall {
  name: string;
  arguments: Record<string, unknown>;
}

export interface GigaChatMessage {
  role: 'system' | 'user' | 'assistant' | 'function';
  content: string;
  name?: string;
  function_call?: GigaChatFunctionCall;
}

export interface GigaChatFunction {
  name: string;
  description?: string;
  parameters: Record<string, unknown>;
}

export interface GigaChatChatBody {
  model: string;
  messages: GigaChatMessage[];
  stream?: boolean;
  temperature?: number;
  top_p?: number;
  max_tokens?: number;
  functions?: GigaChatFunction[];
  function_call?: 'auto' | 'none' | { name: string };
}

function refuse(message: string, param: string): never {
  throw new ProviderError('invalid_request', message, undefined, undefined, param);
}

/** Tool-call arguments (a JSON string on the canonical side) → the object GigaChat expects. */
export function argumentsObject(raw: string): Record<string, unknown> {
  if (raw.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(raw);
    if (isRecord(parsed)) return parsed;
  } catch {
    // not JSON: carried as a value below
  }
  return { value: raw };
}

/** A tool result as GigaChat's function message content: JSON text (plain text is wrapped). */
export function functionResultContent(text: string): string {
  try {
    JSON.parse(text);
    return text;
  } catch {
    return JSON.stringify({ result: text });
  }
}

function mapMessages(messages: ChatMessage[]): GigaChatMessage[] {
  const out: GigaChatMessage[] = [];
  const toolNames = new Map<string, string>();
  for (const [i, m] of messages.entries()) {
    const text = contentText(m.content);
    if (Array.isArray(m.content) && m.content.some((p) => p.type === 'image_url'))
      refuse('Images are not supported by this GigaChat model.', `messages[${i}].content`);
    switch (m.role) {
      case 'system':
      case 'developer':
        out.push({ role: 'system', content: text });
        break;
      case 'user':
        out.push({ role: 'user', content: text });
        break;
      case 'assistant': {
        const calls = m.tool_calls ?? [];
        if (calls.length === 0) {
          out.push({ role: 'assistant', content: text });
          break;
        }
        calls.forEach((call, n) => {
          toolNames.set(call.id, call.function.name);
          out.push({
            role: 'assistant',
            content: n === 0 ? text : '',
            function_call: { name: call.function.name, arguments: argumentsObject(call.function.arguments) },
          });
        });
        break;
      }
      case 'tool': {
        const name = (m.tool_call_id !== undefined ? toolNames.get(m.tool_call_id) : undefined) ?? m.name;
        if (!name)
          refuse(
            `messages[${i}] is a tool result whose tool_call_id matches no earlier tool call.`,
            `messages[${i}].tool_call_id`,
          );
        out.push({ role: 'function', name, content: functionResultContent(text) });
        break;
      }
    }
  }
  return out;
}

function mapFunctionCall(req: CanonicalChatRequest): GigaChatChatBody['function_call'] {
  const choice = req.tool_choice;
  if (choice === undefined || choice === 'auto') return 'auto';
  if (choice === 'none') return 'none';
  if (choice === 'required') {
    if (req.tools?.length === 1) return { name: req.tools[0].function.name };
    refuse('tool_choice "required" with several tools is not supported by GigaChat; name one tool.', 'tool_choice');
  }
  return { name: choice.function.name };
}

export function buildGigaChatBody(req: CanonicalChatRequest): GigaChatChatBody {
  if (req.stop !== undefined && (typeof req.stop === 'string' ? req.stop !== '' : req.stop.length > 0))
    refuse('stop sequences are not supported by GigaChat models.', 'stop');
  if (req.seed !== undefined) refuse('seed is not supported by GigaChat models.', 'seed');
  if (req.response_format !== undefined && req.response_format.type !== 'text')
    refuse('response_format (JSON output) is not supported by GigaChat models.', 'response_format');
  const body: GigaChatChatBody = { model: req.model, messages: mapMessages(req.messages) };
  if (req.stream) body.stream = true;
  if (req.temperature !== undefined) body.temperature = req.temperature;
  if (req.top_p !== undefined) body.top_p = req.top_p;
  if (req.max_tokens !== undefined) body.max_tokens = req.max_tokens;
  if (req.tools && req.tools.length > 0) {
    body.functions = req.tools.map((t) => ({
      name: t.function.name,
      ...(t.function.description !== undefined ? { description: t.function.description } : {}),
      parameters: t.function.parameters ?? { type: 'object', properties: {} },
    }));
    body.function_call = mapFunctionCall(req);
  }
  return body;
}

/** `POST {base}/chat/completions` with the access token. */
export function buildGigaChatRequest(
  req: CanonicalChatRequest,
  baseUrl: string,
  accessToken: string,
): { url: string; headers: Record<string, string>; body: GigaChatChatBody } {
  return {
    url: joinUrl(baseUrl, 'chat/completions'),
    headers: { authorization: `Bearer ${accessToken}` },
    body: buildGigaChatBody(req),
  };
}
