/**
 * An Anthropic Messages request body (already past the DTO's scalar checks): its unions validated
 * with errors naming the exact field, and its reading in the gateway's canonical types — used to
 * count, hold and check every request, and sent upstream for models that do not speak the Messages
 * API. What only Claude can take (PDFs, server tools, top_k, unknown block types) is listed in
 * `claudeOnly`, so a request needing it is refused for other models before any upstream call.
 */
import { ApiError } from '@app/common';
import type { ChatMessage, ContentPart, ToolCall, ToolChoice, ToolDefinition } from '@app/providers';
import type { ChatParams } from '../chat.service';

type Json = Record<string, unknown>;

export interface MessagesRequest {
  messages: ChatMessage[];
  params: ChatParams;
  /** what a model that does not speak the Messages API cannot be sent, by the field that asks for it */
  claudeOnly: Array<{ param: string; what: string }>;
  /** metadata.user_id */
  endUser?: string;
  stream: boolean;
}

const IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'];
/** block types the gateway reads; others pass through to Claude models untouched */
const KNOWN_BLOCKS = new Set(['text', 'image', 'document', 'tool_use', 'tool_result', 'thinking', 'redacted_thinking']);

function bad(message: string, param: string): ApiError {
  return ApiError.badRequest(`${param}: ${message}`, param, 'invalid_value');
}

function isObj(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function str(o: Json, field: string, at: string): string {
  const v = o[field];
  if (typeof v !== 'string') throw bad(v === undefined ? 'Field required' : 'must be a string', `${at}.${field}`);
  return v;
}

function obj(o: Json, field: string, at: string): Json {
  const v = o[field];
  if (!isObj(v)) throw bad(v === undefined ? 'Field required' : 'must be an object', `${at}.${field}`);
  return v;
}

function checkCacheControl(block: Json, at: string): void {
  const cc = block.cache_control;
  if (cc === undefined || cc === null) return;
  if (!isObj(cc) || cc.type !== 'ephemeral') throw bad('type must be "ephemeral"', `${at}.cache_control`);
  if (cc.ttl !== undefined && cc.ttl !== '5m' && cc.ttl !== '1h')
    throw bad('ttl must be "5m" or "1h"', `${at}.cache_control.ttl`);
}

function imagePart(block: Json, at: string): ContentPart {
  const source = obj(block, 'source', at);
  if (source.type === 'base64') {
    const mediaType = str(source, 'media_type', `${at}.source`);
    if (!IMAGE_TYPES.includes(mediaType))
      throw bad(`must be one of ${IMAGE_TYPES.join(', ')}`, `${at}.source.media_type`);
    return { type: 'image_url', image_url: { url: `data:${mediaType};base64,${str(source, 'data', `${at}.source`)}` } };
  }
  if (source.type === 'url') {
    const url = str(source, 'url', `${at}.source`);
    if (!/^https?:\/\//i.test(url)) throw bad('must be an http(s) URL', `${at}.source.url`);
    return { type: 'image_url', image_url: { url } };
  }
  throw bad('type must be "base64" or "url"', `${at}.source.type`);
}

/** A document block: plain text is read as text; a PDF (base64 or url) only Claude models read. */
function documentPart(block: Json, at: string, claudeOnly: MessagesRequest['claudeOnly']): ContentPart {
  const source = obj(block, 'source', at);
  const title = typeof block.title === 'string' ? `${block.title}\n` : '';
  switch (source.type) {
    case 'text':
      return { type: 'text', text: title + str(source, 'data', `${at}.source`) };
    case 'content': {
      if (!Array.isArray(source.content)) throw bad('must be an array', `${at}.source.content`);
      const text = source.content
        .map((b, i) => (isObj(b) && b.type === 'text' ? str(b, 'text', `${at}.source.content[${i}]`) : ''))
        .join('\n');
      return { type: 'text', text: title + text };
    }
    case 'base64':
      if (str(source, 'media_type', `${at}.source`) !== 'application/pdf')
        throw bad('must be "application/pdf"', `${at}.source.media_type`);
      str(source, 'data', `${at}.source`);
      claudeOnly.push({ param: at, what: 'PDF documents' });
      return { type: 'text', text: title };
    case 'url':
      if (!/^https?:\/\//i.test(str(source, 'url', `${at}.source`)))
        throw bad('must be an http(s) URL', `${at}.source.url`);
      claudeOnly.push({ param: at, what: 'PDF documents' });
      return { type: 'text', text: title };
    default:
      throw bad('type must be "base64", "url", "text" or "content"', `${at}.source.type`);
  }
}

/** tool_result content: its text (and images, which follow the tool turn as a user turn). */
function toolResult(block: Json, at: string): { message: ChatMessage; images: ContentPart[] } {
  const id = str(block, 'tool_use_id', at);
  const content = block.content;
  const images: ContentPart[] = [];
  let text = '';
  if (typeof content === 'string') text = content;
  else if (Array.isArray(content)) {
    const texts: string[] = [];
    content.forEach((b, i) => {
      const where = `${at}.content[${i}]`;
      if (!isObj(b)) throw bad('must be an object', where);
      checkCacheControl(b, where);
      if (b.type === 'text') texts.push(str(b, 'text', where));
      else if (b.type === 'image') images.push(imagePart(b, where));
      else if (b.type === 'document' || b.type === 'search_result') texts.push('');
      else throw bad('type must be "text" or "image"', `${where}.type`);
    });
    text = texts.join('\n');
  } else if (content !== undefined) throw bad('must be a string or an array of blocks', `${at}.content`);
  if (block.is_error === true && text === '') text = 'error';
  return { message: { role: 'tool', tool_call_id: id, content: text }, images };
}

function userTurn(content: unknown[], at: string, claudeOnly: MessagesRequest['claudeOnly']): ChatMessage[] {
  const tools: ChatMessage[] = [];
  const parts: ContentPart[] = [];
  content.forEach((b, i) => {
    const where = `${at}[${i}]`;
    const block = blockOf(b, where, claudeOnly);
    if (block === null) return;
    switch (block.type) {
      case 'text':
        parts.push({ type: 'text', text: str(block, 'text', where) });
        break;
      case 'image':
        parts.push(imagePart(block, where));
        break;
      case 'document':
        parts.push(documentPart(block, where, claudeOnly));
        break;
      case 'tool_result': {
        const r = toolResult(block, where);
        tools.push(r.message);
        parts.push(...r.images);
        break;
      }
      default:
        throw bad(`a user turn cannot hold a ${String(block.type)} block`, `${where}.type`);
    }
  });
  return parts.length > 0 ? [...tools, { role: 'user', content: parts }] : tools;
}

function assistantTurn(content: unknown[], at: string, claudeOnly: MessagesRequest['claudeOnly']): ChatMessage {
  let text = '';
  const calls: ToolCall[] = [];
  content.forEach((b, i) => {
    const where = `${at}[${i}]`;
    const block = blockOf(b, where, claudeOnly);
    if (block === null) return;
    switch (block.type) {
      case 'text':
        text += str(block, 'text', where);
        break;
      case 'tool_use':
        calls.push({
          id: str(block, 'id', where),
          type: 'function',
          function: { name: str(block, 'name', where), arguments: JSON.stringify(obj(block, 'input', where)) },
        });
        break;
      case 'thinking':
        // a Claude model checks the signature; other models get no earlier reasoning back
        str(block, 'thinking', where);
        str(block, 'signature', where);
        break;
      case 'redacted_thinking':
        str(block, 'data', where);
        break;
      default:
        throw bad(`an assistant turn cannot hold a ${String(block.type)} block`, `${where}.type`);
    }
  });
  return { role: 'assistant', content: text === '' ? null : text, ...(calls.length ? { tool_calls: calls } : {}) };
}

/** A content block's common checks; null for a block type the gateway does not read (Claude models only). */
function blockOf(b: unknown, at: string, claudeOnly: MessagesRequest['claudeOnly']): Json | null {
  if (!isObj(b)) throw bad('must be an object', at);
  const type = str(b, 'type', at);
  checkCacheControl(b, at);
  if (KNOWN_BLOCKS.has(type)) return b;
  claudeOnly.push({ param: `${at}.type`, what: `${type} blocks` });
  return null;
}

function systemText(system: unknown): string {
  if (system === undefined || system === null) return '';
  if (typeof system === 'string') return system;
  if (!Array.isArray(system)) throw bad('must be a string or an array of text blocks', 'system');
  return system
    .map((b, i) => {
      const at = `system[${i}]`;
      if (!isObj(b) || b.type !== 'text') throw bad('must be a text block', at);
      checkCacheControl(b, at);
      return str(b, 'text', at);
    })
    .join('\n');
}

function tools(raw: unknown[] | undefined, claudeOnly: MessagesRequest['claudeOnly']): ToolDefinition[] | undefined {
  if (raw === undefined) return undefined;
  const out: ToolDefinition[] = [];
  raw.forEach((t, i) => {
    const at = `tools[${i}]`;
    if (!isObj(t)) throw bad('must be an object', at);
    const name = str(t, 'name', at);
    checkCacheControl(t, at);
    if (t.type !== undefined && t.type !== null && t.type !== 'custom') {
      // a server tool (web_search, code_execution, …) runs at Anthropic
      claudeOnly.push({ param: `${at}.type`, what: `the server tool ${String(t.type)}` });
      return;
    }
    const schema = obj(t, 'input_schema', at);
    if (t.description !== undefined && typeof t.description !== 'string')
      throw bad('must be a string', `${at}.description`);
    out.push({
      type: 'function',
      function: {
        name,
        ...(typeof t.description === 'string' ? { description: t.description } : {}),
        parameters: schema,
      },
    });
  });
  return out.length > 0 ? out : undefined;
}

function toolChoice(raw: Json | undefined): Pick<ChatParams, 'tool_choice' | 'parallel_tool_calls'> {
  if (raw === undefined) return {};
  const parallel = raw.disable_parallel_tool_use === true ? { parallel_tool_calls: false } : {};
  if (raw.disable_parallel_tool_use !== undefined && typeof raw.disable_parallel_tool_use !== 'boolean')
    throw bad('must be a boolean', 'tool_choice.disable_parallel_tool_use');
  switch (raw.type) {
    case 'auto':
      return { tool_choice: 'auto', ...parallel };
    case 'any':
      return { tool_choice: 'required', ...parallel };
    case 'none':
      return { tool_choice: 'none' };
    case 'tool': {
      const choice: ToolChoice = { type: 'function', function: { name: str(raw, 'name', 'tool_choice') } };
      return { tool_choice: choice, ...parallel };
    }
    default:
      throw bad('type must be "auto", "any", "tool" or "none"', 'tool_choice.type');
  }
}

/** enabled: Anthropic's budget rules; other types (disabled, adaptive, …) pass to Claude and mean nothing to other models. */
function checkThinking(raw: Json | undefined, maxTokens: number | undefined): void {
  if (raw === undefined) return;
  if (typeof raw.type !== 'string') throw bad('Field required', 'thinking.type');
  if (raw.type !== 'enabled') return;
  const budget = raw.budget_tokens;
  if (typeof budget !== 'number' || !Number.isInteger(budget) || budget < 1024)
    throw bad('must be an integer ≥ 1024', 'thinking.budget_tokens');
  if (maxTokens !== undefined && budget >= maxTokens)
    throw bad('must be less than max_tokens', 'thinking.budget_tokens');
}

/**
 * Validates the body and reads it canonically. `maxTokens` is undefined for count_tokens (which
 * has none). Throws a 400 ApiError naming the field.
 */
export function readMessagesRequest(body: Json, maxTokens: number | undefined): MessagesRequest {
  const claudeOnly: MessagesRequest['claudeOnly'] = [];
  const messages: ChatMessage[] = [];
  const system = systemText(body.system);
  if (system !== '') messages.push({ role: 'system', content: system });
  const turns = Array.isArray(body.messages) ? body.messages : [];
  turns.forEach((m, i) => {
    const at = `messages[${i}]`;
    if (!isObj(m)) throw bad('must be an object', at);
    if (m.role !== 'user' && m.role !== 'assistant') throw bad('must be "user" or "assistant"', `${at}.role`);
    const content = m.content;
    if (typeof content === 'string') {
      messages.push({ role: m.role, content });
      return;
    }
    if (!Array.isArray(content)) throw bad('must be a string or an array of content blocks', `${at}.content`);
    if (m.role === 'user') messages.push(...userTurn(content, `${at}.content`, claudeOnly));
    else messages.push(assistantTurn(content, `${at}.content`, claudeOnly));
  });
  const thinking = isObj(body.thinking) ? body.thinking : undefined;
  checkThinking(thinking, maxTokens);
  const metadata = isObj(body.metadata) ? body.metadata : undefined;
  if (metadata?.user_id !== undefined && metadata.user_id !== null && typeof metadata.user_id !== 'string')
    throw bad('must be a string', 'metadata.user_id');
  if (typeof body.top_k === 'number') claudeOnly.push({ param: 'top_k', what: 'top_k' });
  const endUser = typeof metadata?.user_id === 'string' ? metadata.user_id : undefined;
  const params: ChatParams = {
    ...(maxTokens !== undefined ? { max_tokens: maxTokens } : {}),
    ...(typeof body.temperature === 'number' ? { temperature: body.temperature } : {}),
    ...(typeof body.top_p === 'number' ? { top_p: body.top_p } : {}),
    ...(Array.isArray(body.stop_sequences) && body.stop_sequences.length > 0
      ? { stop: body.stop_sequences as string[] }
      : {}),
    ...(endUser !== undefined ? { user: endUser } : {}),
  };
  const defs = tools(Array.isArray(body.tools) ? body.tools : undefined, claudeOnly);
  if (defs) params.tools = defs;
  Object.assign(params, toolChoice(isObj(body.tool_choice) ? body.tool_choice : undefined));
  return { messages, params, claudeOnly, endUser, stream: body.stream === true };
}

/** Why a model that does not speak the Messages API cannot take this request (a 400), or null. */
export function translationProblem(req: MessagesRequest, modelKey: string): ApiError | null {
  const first = req.claudeOnly[0];
  if (!first) return null;
  return ApiError.badRequest(
    `The model '${modelKey}' cannot take ${first.what} (${first.param}); only Claude models served by an Anthropic upstream can.`,
    first.param,
    'unsupported_for_model',
  );
}
