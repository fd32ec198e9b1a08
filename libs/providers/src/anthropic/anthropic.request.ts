/** Canonical request → Anthropic Messages API `POST {baseUrl}/v1/messages`. */
import {
  CanonicalChatRequest,
  ReasoningEffort,
  ChatMessage,
  ImagePart,
  ProviderConnection,
  ProviderError,
  ToolCall,
  ToolChoice,
  ToolDefinition,
} from '../types';
import { isHttpUrl, joinUrl, parseDataUrl } from '../http/urls';
import { contentText } from '../message-text';
import { isRecord, parseJson } from '../http/wire-json';
import { AnthropicTool, JSON_OUTPUT_TOOL_NAME, jsonOutputTool } from './anthropic.json-mode';

export const ANTHROPIC_VERSION = '2023-06-01';
/** Anthropic requires max_tokens; used when the caller supplied none. */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 4096;

/** Thinking budget (tokens) per OpenAI reasoning_effort. */
export const ANTHROPIC_THINKING_BUDGET: Record<ReasoningEffort, number> = {
  minimal: 1024,
  low: 2048,
  medium: 8192,
  high: 24576,
};

export interface AnthropicTextBlock {
  type: 'text';
  text: string;
}
export interface AnthropicImageBlock {
  type: 'image';
  source: { type: 'base64'; media_type: string; data: string } | { type: 'url'; url: string };
}
export interface AnthropicToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: Record<string, unknown>;
}
export interface AnthropicToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content: string | Array<AnthropicTextBlock | AnthropicImageBlock>;
}
export type AnthropicContentBlock =
  AnthropicTextBlock | AnthropicImageBlock | AnthropicToolUseBlock | AnthropicToolResultBlock;

export interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: AnthropicContentBlock[];
}

export type AnthropicToolChoice =
  | { type: 'auto' | 'any'; disable_parallel_tool_use?: boolean }
  | { type: 'tool'; name: string; disable_parallel_tool_use?: boolean }
  | { type: 'none' };

export interface AnthropicMessagesBody {
  model: string;
  max_tokens: number;
  system?: string;
  messages: AnthropicMessage[];
  temperature?: number;
  thinking?: { type: 'enabled'; budget_tokens: number };
  top_p?: number;
  stop_sequences?: string[];
  tools?: AnthropicTool[];
  tool_choice?: AnthropicToolChoice;
  metadata?: { user_id: string };
  stream?: true;
}

export function anthropicHeaders(conn: ProviderConnection): Record<string, string> {
  return { 'content-type': 'application/json', 'x-api-key': conn.apiKey, 'anthropic-version': ANTHROPIC_VERSION };
}

function invalid(message: string, param: string): ProviderError {
  return new ProviderError('invalid_request', message, undefined, undefined, param);
}

/** data: URL → base64 image block; http(s) URL → url image block. */
export function toAnthropicImage(part: ImagePart, param: string): AnthropicImageBlock {
  const url = part.image_url.url;
  const data = parseDataUrl(url);
  if (data) return { type: 'image', source: { type: 'base64', media_type: data.mimeType, data: data.data } };
  if (isHttpUrl(url)) return { type: 'image', source: { type: 'url', url } };
  throw invalid('Image URLs must be data: URLs or http(s) URLs', param);
}

function toContentBlocks(
  content: ChatMessage['content'],
  param: string,
): Array<AnthropicTextBlock | AnthropicImageBlock> {
  if (content === null) return [];
  // Anthropic rejects empty text blocks
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  const blocks: Array<AnthropicTextBlock | AnthropicImageBlock> = [];
  content.forEach((part, i) => {
    if (part.type === 'text') {
      if (part.text !== '') blocks.push({ type: 'text', text: part.text });
    } else {
      blocks.push(toAnthropicImage(part, `${param}[${i}]`));
    }
  });
  return blocks;
}

/** OpenAI tool-call arguments (a JSON string) → the input object Anthropic wants. */
export function parseToolArguments(args: string, param: string): Record<string, unknown> {
  if (args.trim() === '') return {};
  const parsed = parseJson(args);
  if (!parsed.ok || !isRecord(parsed.value)) throw invalid('Tool call arguments must be a JSON object', param);
  return parsed.value;
}

function toToolUse(call: ToolCall, param: string): AnthropicToolUseBlock {
  return {
    type: 'tool_use',
    id: call.id,
    name: call.function.name,
    input: parseToolArguments(call.function.arguments, param),
  };
}

function toAnthropicTurn(message: ChatMessage, i: number): AnthropicMessage | null {
  const param = `messages[${i}]`;
  switch (message.role) {
    case 'user':
      return { role: 'user', content: toContentBlocks(message.content, `${param}.content`) };
    case 'assistant': {
      // images are not allowed in assistant turns: keep the text only
      const text = contentText(message.content);
      const content: AnthropicContentBlock[] = text === '' ? [] : [{ type: 'text', text }];
      (message.tool_calls ?? []).forEach((call, j) =>
        content.push(toToolUse(call, `${param}.tool_calls[${j}].function.arguments`)),
      );
      return { role: 'assistant', content };
    }
    case 'tool': {
      if (message.tool_call_id === undefined)
        throw invalid('Tool messages need a tool_call_id', `${param}.tool_call_id`);
      const content =
        typeof message.content === 'string' || message.content === null
          ? (message.content ?? '')
          : toContentBlocks(message.content, `${param}.content`);
      return { role: 'user', content: [{ type: 'tool_result', tool_use_id: message.tool_call_id, content }] };
    }
    default:
      return null; // system / developer go to the top-level `system`
  }
}

/**
 * Turns in Anthropic order: consecutive same-role turns merged (so consecutive tool results share
 * one user turn), tool_result blocks first inside a user turn, empty turns dropped.
 */
export function toAnthropicMessages(messages: ChatMessage[]): AnthropicMessage[] {
  const out: AnthropicMessage[] = [];
  messages.forEach((message, i) => {
    const turn = toAnthropicTurn(message, i);
    if (turn === null || turn.content.length === 0) return;
    const last = out[out.length - 1];
    if (last !== undefined && last.role === turn.role) last.content.push(...turn.content);
    else out.push(turn);
  });
  for (const turn of out) {
    if (turn.role !== 'user') continue;
    turn.content = [
      ...turn.content.filter((b) => b.type === 'tool_result'),
      ...turn.content.filter((b) => b.type !== 'tool_result'),
    ];
  }
  return out;
}

/** system and developer messages → one top-level system prompt. */
export function toAnthropicSystem(messages: ChatMessage[]): string | undefined {
  const parts = messages
    .filter((m) => m.role === 'system' || m.role === 'developer')
    .map((m) => contentText(m.content))
    .filter((t) => t !== '');
  return parts.length > 0 ? parts.join('\n\n') : undefined;
}

export function toAnthropicTool(tool: ToolDefinition): AnthropicTool {
  const out: AnthropicTool = {
    name: tool.function.name,
    input_schema: tool.function.parameters ?? { type: 'object', properties: {} },
  };
  if (tool.function.description !== undefined) out.description = tool.function.description;
  return out;
}

export function toAnthropicToolChoice(
  choice: ToolChoice | undefined,
  parallel: boolean | undefined,
): AnthropicToolChoice | undefined {
  const disable = parallel === false ? { disable_parallel_tool_use: true } : {};
  if (choice === 'none') return { type: 'none' };
  if (choice === 'required') return { type: 'any', ...disable };
  if (typeof choice === 'object') return { type: 'tool', name: choice.function.name, ...disable };
  if (choice === 'auto' || parallel === false) return { type: 'auto', ...disable };
  return undefined;
}

/** tools + tool_choice, with the JSON-mode tool folded in (see anthropic.json-mode.ts). */
function toolsAndChoice(req: CanonicalChatRequest): Pick<AnthropicMessagesBody, 'tools' | 'tool_choice'> {
  const userTools = (req.tools ?? []).map(toAnthropicTool);
  const jsonTool = jsonOutputTool(req.response_format);
  if (jsonTool === undefined) {
    if (userTools.length === 0) return {};
    const toolChoice = toAnthropicToolChoice(req.tool_choice, req.parallel_tool_calls);
    return toolChoice === undefined ? { tools: userTools } : { tools: userTools, tool_choice: toolChoice };
  }
  const forced: AnthropicToolChoice = { type: 'tool', name: JSON_OUTPUT_TOOL_NAME };
  // tool_choice none: the caller's tools stay defined (history may hold tool_use blocks) but unused
  if (userTools.length === 0 || req.tool_choice === 'none')
    return { tools: [...userTools, jsonTool], tool_choice: forced };
  if (typeof req.tool_choice === 'object') {
    return {
      tools: [...userTools, jsonTool],
      tool_choice: { type: 'tool', name: req.tool_choice.function.name, disable_parallel_tool_use: true },
    };
  }
  return { tools: [...userTools, jsonTool], tool_choice: { type: 'any', disable_parallel_tool_use: true } };
}

export function buildAnthropicBody(req: CanonicalChatRequest): AnthropicMessagesBody {
  if (req.n !== undefined && req.n > 1) throw invalid('This model does not support n > 1', 'n');
  const body: AnthropicMessagesBody = {
    model: req.model,
    max_tokens: req.max_tokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS,
    messages: toAnthropicMessages(req.messages),
  };
  const system = toAnthropicSystem(req.messages);
  if (system !== undefined) body.system = system;
  // Anthropic's temperature range is 0..1 (OpenAI's is 0..2): clamp instead of failing
  if (req.temperature !== undefined) body.temperature = Math.min(Math.max(req.temperature, 0), 1);
  if (req.top_p !== undefined) body.top_p = req.top_p;
  if (req.stop !== undefined) {
    const stops = (typeof req.stop === 'string' ? [req.stop] : req.stop).filter((s) => s !== '');
    if (stops.length > 0) body.stop_sequences = stops;
  }
  Object.assign(body, toolsAndChoice(req));
  // reasoning_effort → extended thinking with a token budget below max_tokens (≥ 1024, Anthropic's minimum)
  if (req.reasoning_effort !== undefined)
    body.thinking = {
      type: 'enabled',
      budget_tokens: Math.max(1024, Math.min(ANTHROPIC_THINKING_BUDGET[req.reasoning_effort], body.max_tokens - 1)),
    };
  if (req.user !== undefined) body.metadata = { user_id: req.user };
  if (req.stream === true) body.stream = true;
  // seed and n=1 have no Anthropic counterpart and are dropped
  return body;
}

export function buildAnthropicChatRequest(
  req: CanonicalChatRequest,
  conn: ProviderConnection,
): { url: string; headers: Record<string, string>; body: AnthropicMessagesBody } {
  return { url: joinUrl(conn.baseUrl, 'v1/messages'), headers: anthropicHeaders(conn), body: buildAnthropicBody(req) };
}
