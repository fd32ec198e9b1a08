/**
 * Canonical request → Yandex Foundation Models `POST {baseUrl}/foundationModels/v1/completion`:
 * `modelUri` `gpt://<folder>/<model>/latest`, `completionOptions` (`maxTokens` is a string),
 * messages of `{role, text}`, the assistant's calls as `toolCallList` (arguments as an object) and
 * tool results as a user turn's `toolResultList`; JSON mode as `jsonObject` / `jsonSchema`.
 * What the API cannot honour (stop sequences, top_p, images, n > 1) is refused before any call.
 */
import {
  CanonicalChatRequest,
  ChatMessage,
  ProviderConnection,
  ProviderError,
  ToolChoice,
  ToolDefinition,
} from '../types';
import { joinUrl } from '../http/urls';
import { isRecord, parseJson } from '../http/wire-json';
import { contentText } from '../message-text';
import { yandexAccess, yandexModelUri } from './yandex.access';
import { resolveToolResultNames } from '../synthetic-tool-ids';

export interface YandexFunctionCall {
  functionCall: { name: string; arguments: Record<string, unknown> };
}

export interface YandexFunctionResult {
  functionResult: { name: string; content: string };
}

export type YandexMessage =
  | { role: 'system' | 'user' | 'assistant'; text: string }
  | { role: 'assistant'; toolCallList: { toolCalls: YandexFunctionCall[] } }
  | { role: 'user'; toolResultList: { toolResults: YandexFunctionResult[] } };

export interface YandexTool {
  function: { name: string; description?: string; parameters?: Record<string, unknown>; strict?: boolean };
}

export type YandexToolChoice = { mode: 'NONE' | 'AUTO' | 'REQUIRED' } | { functionName: string };

export interface YandexCompletionOptions {
  stream: boolean;
  temperature?: number;
  /** int64 as a string (protobuf JSON) */
  maxTokens?: string;
  reasoningOptions?: { mode: 'DISABLED' | 'ENABLED_HIDDEN' };
}

export interface YandexCompletionBody {
  modelUri: string;
  completionOptions: YandexCompletionOptions;
  messages: YandexMessage[];
  tools?: YandexTool[];
  toolChoice?: YandexToolChoice;
  parallelToolCalls?: boolean;
  jsonObject?: boolean;
  jsonSchema?: { schema: Record<string, unknown> };
}

function invalid(message: string, param: string): ProviderError {
  return new ProviderError('invalid_request', message, undefined, undefined, param);
}

function userText(message: ChatMessage, param: string): string {
  if (Array.isArray(message.content)) {
    const image = message.content.findIndex((p) => p.type !== 'text');
    if (image >= 0) throw invalid('YandexGPT models take text only, not images', `${param}.content[${image}]`);
  }
  return contentText(message.content);
}

function parseArgs(args: string, param: string): Record<string, unknown> {
  if (args.trim() === '') return {};
  const parsed = parseJson(args);
  if (!parsed.ok || !isRecord(parsed.value)) throw invalid('Tool call arguments must be a JSON object', param);
  return parsed.value;
}

/** Conversation in Yandex's shapes; consecutive tool results become one user turn's toolResultList. */
export function toYandexMessages(messages: ChatMessage[]): YandexMessage[] {
  const toolNames = resolveToolResultNames(messages);
  const out: YandexMessage[] = [];
  messages.forEach((message, i) => {
    const param = `messages[${i}]`;
    switch (message.role) {
      case 'system':
      case 'developer':
      case 'user': {
        const text = userText(message, param);
        if (text !== '') out.push({ role: message.role === 'user' ? 'user' : 'system', text });
        return;
      }
      case 'assistant': {
        const text = contentText(message.content);
        if (text !== '') out.push({ role: 'assistant', text });
        const calls = (message.tool_calls ?? []).map((call, j) => ({
          functionCall: {
            name: call.function.name,
            arguments: parseArgs(call.function.arguments, `${param}.tool_calls[${j}].function.arguments`),
          },
        }));
        if (calls.length > 0) out.push({ role: 'assistant', toolCallList: { toolCalls: calls } });
        return;
      }
      case 'tool': {
        const name = toolNames.get(i);
        if (name === undefined)
          throw invalid('Cannot find the tool call this tool message answers', `${param}.tool_call_id`);
        const result: YandexFunctionResult = { functionResult: { name, content: contentText(message.content) } };
        const last = out[out.length - 1];
        if (last !== undefined && 'toolResultList' in last) last.toolResultList.toolResults.push(result);
        else out.push({ role: 'user', toolResultList: { toolResults: [result] } });
        return;
      }
    }
  });
  return out;
}

export function toYandexTool(tool: ToolDefinition): YandexTool {
  const fn: YandexTool['function'] = { name: tool.function.name };
  if (tool.function.description !== undefined) fn.description = tool.function.description;
  fn.parameters = tool.function.parameters ?? { type: 'object', properties: {} };
  if (tool.function.strict !== undefined) fn.strict = tool.function.strict;
  return { function: fn };
}

export function toYandexToolChoice(choice: ToolChoice): YandexToolChoice {
  if (choice === 'none') return { mode: 'NONE' };
  if (choice === 'auto') return { mode: 'AUTO' };
  if (choice === 'required') return { mode: 'REQUIRED' };
  return { functionName: choice.function.name };
}

/** Controls with no Foundation Models counterpart: refused, never dropped silently. */
function refuseUnsupported(req: CanonicalChatRequest): void {
  const stops = req.stop === undefined ? [] : (typeof req.stop === 'string' ? [req.stop] : req.stop).filter(Boolean);
  if (stops.length > 0) throw invalid('YandexGPT models do not support stop sequences', 'stop');
  if (req.top_p !== undefined && req.top_p !== 1) throw invalid('YandexGPT models do not support top_p', 'top_p');
  if (req.n !== undefined && req.n > 1) throw invalid('YandexGPT models do not support n > 1', 'n');
}

export function buildYandexBody(req: CanonicalChatRequest, folderId: string): YandexCompletionBody {
  refuseUnsupported(req);
  const options: YandexCompletionOptions = { stream: req.stream === true };
  if (req.temperature !== undefined) options.temperature = req.temperature;
  if (req.max_tokens !== undefined) options.maxTokens = String(req.max_tokens);
  if (req.reasoning_effort !== undefined)
    options.reasoningOptions = { mode: req.reasoning_effort === 'minimal' ? 'DISABLED' : 'ENABLED_HIDDEN' };
  const body: YandexCompletionBody = {
    modelUri: yandexModelUri('gpt', folderId, req.model),
    completionOptions: options,
    messages: toYandexMessages(req.messages),
  };
  if (req.tools !== undefined && req.tools.length > 0) {
    body.tools = req.tools.map(toYandexTool);
    if (req.tool_choice !== undefined) body.toolChoice = toYandexToolChoice(req.tool_choice);
    if (req.parallel_tool_calls !== undefined) body.parallelToolCalls = req.parallel_tool_calls;
  }
  const format = req.response_format;
  if (format?.type === 'json_object') body.jsonObject = true;
  if (format?.type === 'json_schema') {
    if (format.json_schema.schema !== undefined) body.jsonSchema = { schema: format.json_schema.schema };
    else body.jsonObject = true;
  }
  // `seed` and `user` have no counterpart and are not sent (neither changes what is asked of the model)
  return body;
}

export function buildYandexChatRequest(
  req: CanonicalChatRequest,
  conn: ProviderConnection,
): { url: string; headers: Record<string, string>; body: YandexCompletionBody } {
  const access = yandexAccess(conn);
  return {
    url: joinUrl(conn.baseUrl, 'foundationModels/v1/completion'),
    headers: access.headers,
    body: buildYandexBody(req, access.folderId),
  };
}
