import { randomUUID } from 'node:crypto';
import { ApiError } from '@app/common';
import type { ChatMessage, ContentPart, ResponseFormat, ToolChoice, ToolDefinition } from '@app/providers';
import type { ChatParams } from './chat.service';
import type { ResponseCreateRequestDto } from './dto/responses.dto';

/**
 * POST /v1/responses request (text only) → the canonical chat request of the shared pipeline.
 * Pure functions; every error names the exact field (`input[2].content[0].type`) and is raised
 * before any upstream call.
 */

function bad(message: string, param: string, code = 'invalid_value'): ApiError {
  return ApiError.badRequest(message, param, code);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const MESSAGE_ROLES = new Set(['user', 'assistant', 'system', 'developer']);
const NAME_RE = /^[a-zA-Z0-9_-]{1,64}$/;

/** `instructions` + `input` → canonical messages (instructions first, as a system message). */
export function responsesMessages(dto: Pick<ResponseCreateRequestDto, 'input' | 'instructions'>): ChatMessage[] {
  const out: ChatMessage[] = [];
  if (dto.instructions !== undefined && dto.instructions !== null && dto.instructions !== '')
    out.push({ role: 'system', content: dto.instructions });
  const input = dto.input;
  if (typeof input === 'string') {
    out.push({ role: 'user', content: input });
  } else if (Array.isArray(input)) {
    if (input.length === 0) throw bad('input must be a non-empty string or array of input items.', 'input');
    input.forEach((item, i) => addItem(out, item, `input[${i}]`));
  } else {
    throw bad('input must be a string or an array of input items.', 'input');
  }
  if (!out.some((m) => m.role !== 'system' && m.role !== 'developer'))
    throw bad('input must contain at least one user, assistant or tool item.', 'input');
  return out;
}

function addItem(out: ChatMessage[], item: unknown, at: string): void {
  if (!isRecord(item)) throw bad(`${at} must be an object.`, at);
  const type = item.type ?? 'message';
  if (type === 'message') {
    const role = item.role;
    if (typeof role !== 'string' || !MESSAGE_ROLES.has(role))
      throw bad(`${at}.role must be one of user, assistant, system, developer.`, `${at}.role`);
    out.push({ role: role as ChatMessage['role'], content: messageContent(item.content, `${at}.content`, role) });
    return;
  }
  if (type === 'function_call') {
    const callId = requireString(item.call_id, `${at}.call_id`);
    const name = requireString(item.name, `${at}.name`);
    const args = requireString(item.arguments, `${at}.arguments`, true);
    const call = { id: callId, type: 'function' as const, function: { name, arguments: args } };
    // consecutive calls (and a text turn just before them) form one assistant turn with tool_calls
    const last = out[out.length - 1];
    if (last && last.role === 'assistant') last.tool_calls = [...(last.tool_calls ?? []), call];
    else out.push({ role: 'assistant', content: null, tool_calls: [call] });
    return;
  }
  if (type === 'function_call_output') {
    const callId = requireString(item.call_id, `${at}.call_id`);
    const output = item.output;
    let text: string;
    if (typeof output === 'string') text = output;
    else if (Array.isArray(output)) text = output.map((p, k) => inputText(p, `${at}.output[${k}]`)).join('\n');
    else throw bad(`${at}.output must be a string or an array of input_text parts.`, `${at}.output`);
    out.push({ role: 'tool', content: text, tool_call_id: callId });
    return;
  }
  if (type === 'item_reference')
    throw bad(
      `${at}: item references are not supported; continue a stored response with previous_response_id, or send the items themselves.`,
      `${at}.type`,
      'unsupported_value',
    );
  throw bad(
    `${at}.type "${String(type)}" is not supported (message, function_call, function_call_output).`,
    `${at}.type`,
    'unsupported_value',
  );
}

function requireString(v: unknown, param: string, allowEmpty = false): string {
  if (v === undefined || v === null) throw bad(`${param} is required.`, param);
  if (typeof v !== 'string' || (!allowEmpty && v === '')) throw bad(`${param} must be a non-empty string.`, param);
  return v;
}

function messageContent(content: unknown, at: string, role: string): string | ContentPart[] {
  if (content === undefined || content === null) throw bad(`${at} is required.`, at);
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) throw bad(`${at} must be a string or an array of content parts.`, at);
  if (role === 'assistant') return content.map((p, k) => outputText(p, `${at}[${k}]`)).join('\n');
  // images as chat takes them: user messages only, as image_url parts (vetted and inlined later)
  if (role === 'user' && content.some((p) => isRecord(p) && p.type === 'input_image'))
    return content.map((p, k) => inputPart(p, `${at}[${k}]`));
  return content.map((p, k) => inputText(p, `${at}[${k}]`)).join('\n');
}

/** An input_text or input_image part of a user message. */
function inputPart(p: unknown, at: string): ContentPart {
  if (isRecord(p) && p.type === 'input_image') {
    if (p.file_id !== undefined && p.file_id !== null)
      throw bad(
        `${at}.file_id is not supported: send the image as image_url (an http(s) or data: URL).`,
        `${at}.file_id`,
        'unsupported_value',
      );
    const url = p.image_url;
    if (typeof url !== 'string' || !/^(https?:\/\/|data:image\/)/i.test(url))
      throw bad(`${at}.image_url must be an http(s) URL or a data:image/… URL.`, `${at}.image_url`);
    const detail = p.detail;
    if (detail !== undefined && detail !== null && detail !== 'auto' && detail !== 'low' && detail !== 'high')
      throw bad(`${at}.detail must be auto, low or high.`, `${at}.detail`);
    return { type: 'image_url', image_url: typeof detail === 'string' ? { url, detail } : { url } };
  }
  return { type: 'text', text: inputText(p, at) };
}

function inputText(p: unknown, at: string): string {
  if (!isRecord(p)) throw bad(`${at} must be an object.`, at);
  if (p.type === 'input_text') {
    if (typeof p.text !== 'string') throw bad(`${at}.text must be a string.`, `${at}.text`);
    return p.text;
  }
  throw bad(
    `${at}.type "${String(p.type)}" is not supported (input_text; input_image in user messages).`,
    `${at}.type`,
    'unsupported_value',
  );
}

function outputText(p: unknown, at: string): string {
  if (!isRecord(p)) throw bad(`${at} must be an object.`, at);
  if (p.type === 'output_text' || p.type === 'input_text') {
    if (typeof p.text !== 'string') throw bad(`${at}.text must be a string.`, `${at}.text`);
    return p.text;
  }
  if (p.type === 'refusal' && typeof p.refusal === 'string') return p.refusal;
  throw bad(
    `${at}.type "${String(p.type)}" is not supported in assistant content (output_text, refusal).`,
    `${at}.type`,
    'unsupported_value',
  );
}

/** Responses `tools` (flat function tools) → canonical tool definitions. */
export function responsesTools(v: unknown[] | undefined): ToolDefinition[] | undefined {
  const functions = (v ?? [])
    .map((t, i) => ({ t, i }))
    .filter(({ t }) => !isRecord(t) || (t.type !== 'file_search' && t.type !== 'mcp'));
  if (functions.length === 0) return undefined;
  return functions.map(({ t, i }) => {
    const at = `tools[${i}]`;
    if (!isRecord(t)) throw bad(`${at} must be an object.`, at);
    if (t.type !== 'function')
      throw bad(
        `${at}.type "${String(t.type)}" is not supported: only function, file_search and mcp tools.`,
        `${at}.type`,
        'unsupported_value',
      );
    if (typeof t.name !== 'string' || !NAME_RE.test(t.name))
      throw bad(`${at}.name must match ^[a-zA-Z0-9_-]{1,64}$.`, `${at}.name`);
    if (t.description !== undefined && t.description !== null && typeof t.description !== 'string')
      throw bad(`${at}.description must be a string.`, `${at}.description`);
    if (t.parameters !== undefined && t.parameters !== null && !isRecord(t.parameters))
      throw bad(`${at}.parameters must be a JSON Schema object.`, `${at}.parameters`);
    return {
      type: 'function',
      function: {
        name: t.name,
        ...(typeof t.description === 'string' ? { description: t.description } : {}),
        ...(isRecord(t.parameters) ? { parameters: t.parameters } : {}),
        ...(typeof t.strict === 'boolean' ? { strict: t.strict } : {}),
      },
    };
  });
}

/** The file_search tool of a Responses request: its stores, result count, threshold and filters. */
export interface ResponsesFileSearch {
  /** the tool's position in `tools` */
  index: number;
  vectorStoreIds: string[];
  maxNumResults: number;
  scoreThreshold: number;
  filters: unknown;
}

/** OpenAI's default and bounds of max_num_results. */
export const FILE_SEARCH_DEFAULT_RESULTS = 10;
const FILE_SEARCH_MAX_RESULTS = 50;
const FILE_SEARCH_MAX_STORES = 10;

/** The `{type: "file_search"}` tool, validated; null without one. At most one per request. */
export function responsesFileSearch(v: unknown[] | undefined | null): ResponsesFileSearch | null {
  const found = (v ?? []).map((t, i) => ({ t, i })).filter(({ t }) => isRecord(t) && t.type === 'file_search');
  if (found.length === 0) return null;
  if (found.length > 1) throw bad('At most one file_search tool per request.', `tools[${found[1].i}]`);
  const { t, i } = found[0] as { t: Record<string, unknown>; i: number };
  const at = `tools[${i}]`;
  const ids = t.vector_store_ids;
  if (!Array.isArray(ids) || ids.length === 0 || ids.some((id) => typeof id !== 'string' || id === ''))
    throw bad(`${at}.vector_store_ids must be a non-empty array of vector store ids.`, `${at}.vector_store_ids`);
  if (ids.length > FILE_SEARCH_MAX_STORES)
    throw bad(`${at}.vector_store_ids: at most ${FILE_SEARCH_MAX_STORES} vector stores.`, `${at}.vector_store_ids`);
  const max = t.max_num_results ?? FILE_SEARCH_DEFAULT_RESULTS;
  if (typeof max !== 'number' || !Number.isInteger(max) || max < 1 || max > FILE_SEARCH_MAX_RESULTS)
    throw bad(
      `${at}.max_num_results must be an integer from 1 to ${FILE_SEARCH_MAX_RESULTS}.`,
      `${at}.max_num_results`,
    );
  return {
    index: i,
    vectorStoreIds: [...new Set(ids as string[])],
    maxNumResults: max,
    scoreThreshold: scoreThreshold(t.ranking_options, `${at}.ranking_options`),
    filters: t.filters ?? null,
  };
}

/** ranking_options: {ranker?, score_threshold? 0..1}; the gateway's own ranking serves every ranker. */
function scoreThreshold(v: unknown, at: string): number {
  if (v === undefined || v === null) return 0;
  if (!isRecord(v)) throw bad(`${at} must be an object.`, at);
  const s = v.score_threshold ?? 0;
  if (typeof s !== 'number' || s < 0 || s > 1)
    throw bad(`${at}.score_threshold must be a number from 0 to 1.`, `${at}.score_threshold`);
  return s;
}

export function responsesToolChoice(v: unknown): ToolChoice | undefined {
  if (v === undefined || v === null) return undefined;
  if (v === 'none' || v === 'auto' || v === 'required') return v;
  // the file_search tool always runs (the gateway searches before the model answers)
  if (isRecord(v) && v.type === 'file_search') return undefined;
  if (isRecord(v) && v.type === 'function' && typeof v.name === 'string')
    return { type: 'function', function: { name: v.name } };
  throw bad('tool_choice must be "none", "auto", "required" or {type: "function", name}.', 'tool_choice');
}

/** `text.format` → canonical response_format. */
export function responsesFormat(text: unknown): ResponseFormat | undefined {
  if (text === undefined || text === null) return undefined;
  if (!isRecord(text)) throw bad('text must be an object.', 'text');
  const f = text.format;
  if (f === undefined || f === null) return undefined;
  if (!isRecord(f)) throw bad('text.format must be an object.', 'text.format');
  if (f.type === 'text') return undefined;
  if (f.type === 'json_object') return { type: 'json_object' };
  if (f.type === 'json_schema') {
    if (typeof f.name !== 'string' || !NAME_RE.test(f.name))
      throw bad('text.format.name is required (^[a-zA-Z0-9_-]{1,64}$).', 'text.format.name');
    if (!isRecord(f.schema)) throw bad('text.format.schema must be a JSON Schema object.', 'text.format.schema');
    return {
      type: 'json_schema',
      json_schema: {
        name: f.name,
        schema: f.schema,
        ...(typeof f.description === 'string' ? { description: f.description } : {}),
        ...(typeof f.strict === 'boolean' ? { strict: f.strict } : {}),
      },
    };
  }
  throw bad('text.format.type must be text, json_object or json_schema.', 'text.format.type');
}

/** Generation parameters of a Responses request, in the canonical form. */
export function responsesParams(dto: ResponseCreateRequestDto): ChatParams {
  if (dto.background) throw bad('background responses are not supported.', 'background', 'unsupported_value');
  // named so that they are never silently ignored: a client relying on them learns it at once
  if (dto.conversation !== undefined && dto.conversation !== null)
    throw bad(
      'conversation is not supported: chain responses with previous_response_id, or send the conversation in input.',
      'conversation',
      'unsupported_value',
    );
  if (dto.prompt !== undefined && dto.prompt !== null)
    throw bad(
      'prompt (reusable prompt templates) is not supported: send instructions and input.',
      'prompt',
      'unsupported_value',
    );
  const tools = responsesTools(dto.tools ?? undefined);
  const toolChoice = responsesToolChoice(dto.tool_choice);
  return {
    max_tokens: dto.max_output_tokens ?? undefined,
    temperature: dto.temperature ?? undefined,
    top_p: dto.top_p ?? undefined,
    user: dto.user ?? dto.safety_identifier ?? undefined,
    tools,
    // without tools a tool_choice means nothing (and some upstreams refuse it)
    tool_choice: tools ? toolChoice : undefined,
    parallel_tool_calls: tools ? (dto.parallel_tool_calls ?? undefined) : undefined,
    response_format: responsesFormat(dto.text),
    ...responsesControls(dto),
  };
}

/**
 * The input as GET /v1/responses/{id}/input_items lists it: OpenAI items with ids (a string input
 * is one user message). Called after responsesMessages has validated the input.
 */
export function responseInputItems(input: unknown): Record<string, unknown>[] {
  const id = (prefix: string) => `${prefix}_${randomUUID().replace(/-/g, '')}`;
  const list = typeof input === 'string' ? [{ role: 'user', content: input }] : (input as Record<string, unknown>[]);
  return list.map((item) => {
    const type = item.type ?? 'message';
    if (type === 'function_call')
      return {
        id: id('fc'),
        type,
        status: 'completed',
        call_id: item.call_id,
        name: item.name,
        arguments: item.arguments,
      };
    if (typeof type === 'string' && type.startsWith('mcp_'))
      return { ...item, id: typeof item.id === 'string' ? item.id : id('mcpr') };
    if (type === 'function_call_output')
      return { id: id('fco'), type, status: 'completed', call_id: item.call_id, output: item.output };
    const role = item.role as string;
    const assistant = role === 'assistant';
    const parts =
      typeof item.content === 'string'
        ? [{ type: 'input_text', text: item.content }]
        : (item.content as Record<string, unknown>[]);
    const content = parts.map((p) => {
      if (assistant) return { type: 'output_text', text: p.text ?? p.refusal ?? '', annotations: [], logprobs: [] };
      if (p.type === 'input_image') return { type: 'input_image', image_url: p.image_url, detail: p.detail ?? 'auto' };
      return { type: 'input_text', text: p.text };
    });
    return { id: id('msg'), type: 'message', role, status: 'completed', content };
  });
}

/**
 * The Responses API's names of the chat controls: reasoning.effort, service_tier, text.verbosity
 * and top_logprobs (which asks for logprobs). Which models honour them is checked by the pipeline.
 */
function responsesControls(dto: ResponseCreateRequestDto): Partial<ChatParams> {
  const out: Partial<ChatParams> = {};
  const r = dto.reasoning;
  if (r !== undefined && r !== null) {
    const effort = r.effort;
    if (effort !== undefined && effort !== null) {
      if (effort !== 'minimal' && effort !== 'low' && effort !== 'medium' && effort !== 'high')
        throw bad('reasoning.effort must be minimal, low, medium or high.', 'reasoning.effort');
      out.reasoning_effort = effort;
    }
    if (r.summary !== undefined && r.summary !== null)
      throw bad(
        'reasoning.summary is not supported: no reasoning summaries are produced.',
        'reasoning.summary',
        'unsupported_value',
      );
  }
  if (dto.service_tier !== undefined && dto.service_tier !== null) {
    if (!['auto', 'default', 'flex', 'scale', 'priority'].includes(dto.service_tier))
      throw bad('service_tier must be auto, default, flex, scale or priority.', 'service_tier');
    out.service_tier = dto.service_tier;
  }
  const text = dto.text;
  if (isRecord(text) && text.verbosity !== undefined && text.verbosity !== null) {
    if (text.verbosity !== 'low' && text.verbosity !== 'medium' && text.verbosity !== 'high')
      throw bad('text.verbosity must be low, medium or high.', 'text.verbosity');
    out.verbosity = text.verbosity;
  }
  if (dto.top_logprobs !== undefined && dto.top_logprobs !== null) {
    out.logprobs = true;
    out.top_logprobs = dto.top_logprobs;
  }
  return out;
}

/** The Responses request's field for a control (for errors). */
export function responsesControlParam(c: string): string {
  if (c === 'reasoning_effort') return 'reasoning.effort';
  if (c === 'verbosity') return 'text.verbosity';
  if (c === 'logprobs') return 'top_logprobs';
  return c;
}
