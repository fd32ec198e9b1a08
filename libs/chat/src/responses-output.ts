import { randomUUID } from 'node:crypto';
import type { ErrorBody } from '@app/common';
import type { CanonicalUsage, ChatMessage, ToolCall } from '@app/providers';
import type { PreparedChat } from './chat.service';
import type { ResponseObjectDto, ResponseStreamEventDto } from './dto/responses.dto';
import type { FileCitation, FileSearchCallItem, FileSearchRun } from './responses-file-search';
import type { McpSession } from './responses-mcp-loop';
import type { McpOutputItem } from './responses-mcp';

export interface ResponsesUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number; cache_write_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

interface OutputText {
  type: 'output_text';
  text: string;
  annotations: FileCitation[];
  logprobs: unknown[];
}

export type OutputItem =
  | McpOutputItem
  | { id: string; type: 'message'; status: ItemStatus; role: 'assistant'; content: OutputText[] }
  | { id: string; type: 'function_call'; status: ItemStatus; call_id: string; name: string; arguments: string }
  | FileSearchCallItem;

export type ItemStatus = 'in_progress' | 'completed' | 'incomplete';

/** The request echo carried by every `response` object (as the OpenAI API does). */
export interface ResponseEcho {
  instructions: string | null;
  max_output_tokens: number | null;
  temperature: number | null;
  top_p: number | null;
  tool_choice: unknown;
  tools: unknown[];
  text: unknown;
  parallel_tool_calls: boolean;
  metadata: Record<string, string>;
  user: string | null;
  store: boolean;
  previous_response_id: string | null;
  effort: string | null;
  service_tier: string;
}

/** One Responses stream event: `event: <type>`, data `{type, sequence_number, …}`. */
export interface ResponsesStreamEvent {
  event: string;
  data: ResponseStreamEventDto;
}

export interface PreparedResponse {
  chat: PreparedChat;
  id: string;
  createdAt: number;
  echo: ResponseEcho;
  teamId: string;
  /** the input items as GET /v1/responses/{id}/input_items lists them */
  inputItems: Record<string, unknown>[];
  /** the conversation this answer continues: the previous response's, then this input (no instructions) */
  history: ChatMessage[];
  /** the file_search tool's search (run before the model answers), or null */
  fileSearch: FileSearchRun | null;
  /** what the file search charged (query embeddings, their own ledger entries), µRUB */
  retrievalMicro?: number;
  /** remote MCP tools: the servers resolved and listed, run in a loop with the model */
  mcp?: McpSession;
}

export function hexId(prefix: string): string {
  return `${prefix}_${randomUUID().replace(/-/g, '')}`;
}

/** `logprobs`: the chat answer's logprobs.content (same token entries), with top_logprobs. */
export function outputText(text: string, logprobs: unknown[] = [], annotations: FileCitation[] = []): OutputText {
  return { type: 'output_text', text, annotations, logprobs };
}

export function logprobsOf(choice: { logprobs?: unknown } | undefined): unknown[] {
  const content = (choice?.logprobs as { content?: unknown } | undefined)?.content;
  return Array.isArray(content) ? content : [];
}

export function toResponsesUsage(u: CanonicalUsage): ResponsesUsage {
  return {
    input_tokens: u.prompt_tokens,
    input_tokens_details: { cached_tokens: u.cache_read_tokens, cache_write_tokens: u.cache_write_tokens },
    output_tokens: u.completion_tokens,
    output_tokens_details: { reasoning_tokens: u.reasoning_tokens ?? 0 },
    total_tokens: u.prompt_tokens + u.completion_tokens,
  };
}

/** The answer as the next turn of the conversation: its text and its function calls. */
export function assistantTurn(output: OutputItem[]): ChatMessage {
  const text = output
    .filter((o) => o.type === 'message')
    .flatMap((o) => o.content.map((c) => c.text))
    .join('');
  const calls: ToolCall[] = output
    .filter((o) => o.type === 'function_call')
    .map((o) => ({ id: o.call_id, type: 'function', function: { name: o.name, arguments: o.arguments } }));
  return {
    role: 'assistant',
    content: text === '' && calls.length ? null : text,
    ...(calls.length ? { tool_calls: calls } : {}),
  };
}

/**
 * `response.error.code` takes OpenAI's ResponseErrorCode values only: a rate limit (429, ours or the
 * upstream's) is rate_limit_exceeded; every other failure after the stream started is server_error.
 * The `error` event before it keeps the gateway's own code.
 */
export function responseErrorCode(error: ErrorBody['error']): 'rate_limit_exceeded' | 'server_error' {
  return error.type === 'rate_limit_error' || error.code === 'rate_limit_exceeded'
    ? 'rate_limit_exceeded'
    : 'server_error';
}

/** `model`: the catalog key of the model that serves (the requested one, or a fallback). */
export function responseObject(
  prep: PreparedResponse,
  model: string,
  status: 'in_progress' | 'completed' | 'incomplete' | 'failed',
  output: OutputItem[],
  usage: ResponsesUsage | null,
  error: unknown = null,
): Omit<ResponseObjectDto, 'cost'> {
  const e = prep.echo;
  return {
    id: prep.id,
    object: 'response',
    created_at: prep.createdAt,
    status,
    background: false,
    error,
    incomplete_details: status === 'incomplete' ? { reason: 'max_output_tokens' } : null,
    instructions: e.instructions,
    max_output_tokens: e.max_output_tokens,
    model,
    output,
    parallel_tool_calls: e.parallel_tool_calls,
    previous_response_id: e.previous_response_id,
    reasoning: { effort: e.effort, summary: null },
    service_tier: e.service_tier,
    store: e.store,
    temperature: e.temperature,
    text: e.text,
    tool_choice: e.tool_choice,
    tools: e.tools,
    top_p: e.top_p,
    truncation: 'disabled',
    // members without a value are left out: the schema has no null for usage (before the end) or user
    ...(usage ? { usage } : {}),
    ...(e.user !== null ? { user: e.user } : {}),
    metadata: e.metadata,
  };
}
