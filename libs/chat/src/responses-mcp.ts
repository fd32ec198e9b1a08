import { randomUUID } from 'node:crypto';
import { ApiError } from '@app/common';
import type { McpCallError, McpServerSpec } from './mcp/ports';

/** A `{type: "mcp"}` tool of a Responses request, validated. */
export interface ResponsesMcpTool extends McpServerSpec {
  /** tool names the model may use (null: every tool the server lists) */
  allowedTools: string[] | null;
  /** which tools need the caller's approval before they run */
  approval: { always: boolean; never: string[]; alwaysNames: string[]; explicitNever: boolean };
  /** the tool as the response object echoes it (headers left out: they may hold secrets) */
  echo: Record<string, unknown>;
}

/** The caller's answer to an mcp_approval_request of the previous response. */
export interface McpApprovalAnswer {
  requestId: string;
  approve: boolean;
}

export interface McpListToolsItem {
  id: string;
  type: 'mcp_list_tools';
  server_label: string;
  tools: { name: string; description: string | null; input_schema: Record<string, unknown>; annotations: null }[];
  error?: string | null;
}

export interface McpCallItem {
  id: string;
  type: 'mcp_call';
  status: 'in_progress' | 'completed' | 'failed';
  server_label: string;
  name: string;
  arguments: string;
  output: string | null;
  error: McpCallError | null;
  approval_request_id: string | null;
}

export interface McpApprovalRequestItem {
  id: string;
  type: 'mcp_approval_request';
  server_label: string;
  name: string;
  arguments: string;
}

export type McpOutputItem = McpListToolsItem | McpCallItem | McpApprovalRequestItem;

const LABEL_RE = /^[a-zA-Z0-9_-]{1,64}$/;
const MCP_INPUT_TYPES = new Set(['mcp_list_tools', 'mcp_call', 'mcp_approval_request', 'mcp_approval_response']);

function bad(message: string, param: string, code = 'invalid_value'): ApiError {
  return ApiError.badRequest(message, param, code);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function mcpItemId(prefix: string): string {
  return `${prefix}_${randomUUID().replace(/-/g, '')}`;
}

function toolNames(v: unknown, at: string): string[] {
  const list = isRecord(v) ? v.tool_names : v;
  if (!Array.isArray(list) || list.some((n) => typeof n !== 'string' || n === ''))
    throw bad(`${at} must be an array of tool names or {tool_names: [...]}.`, at);
  return list as string[];
}

function approvalPolicy(v: unknown, at: string): ResponsesMcpTool['approval'] {
  // OpenAI's default: every call needs approval
  if (v === undefined || v === null || v === 'always')
    return { always: true, never: [], alwaysNames: [], explicitNever: false };
  if (v === 'never') return { always: false, never: [], alwaysNames: [], explicitNever: true };
  if (!isRecord(v)) throw bad(`${at} must be "always", "never" or {always?, never?}.`, at);
  return {
    always: false,
    never: v.never === undefined ? [] : toolNames(v.never, `${at}.never`),
    alwaysNames: v.always === undefined ? [] : toolNames(v.always, `${at}.always`),
    explicitNever: false,
  };
}

/**
 * Whether a call of `name` needs approval: a listed tool as its list says; an unlisted one needs it
 * unless the policy only lists tools that do (`{always: …}` alone), or is "never".
 */
export function needsApproval(tool: ResponsesMcpTool, name: string): boolean {
  const a = tool.approval;
  if (a.always || a.alwaysNames.includes(name)) return true;
  if (a.never.includes(name)) return false;
  if (a.never.length === 0 && a.alwaysNames.length > 0) return false;
  return a.never.length > 0 || !a.explicitNever;
}

/** The `{type: "mcp"}` entries of `tools`, validated (labels unique, exactly one of server_url and server_id). */
export function responsesMcpTools(v: unknown[] | null | undefined): ResponsesMcpTool[] {
  const out: ResponsesMcpTool[] = [];
  (v ?? []).forEach((t, index) => {
    if (!isRecord(t) || t.type !== 'mcp') return;
    const at = `tools[${index}]`;
    const label = t.server_label;
    if (typeof label !== 'string' || !LABEL_RE.test(label))
      throw bad(`${at}.server_label must match ^[a-zA-Z0-9_-]{1,64}$.`, `${at}.server_label`);
    if (out.some((o) => o.label === label))
      throw bad(`${at}.server_label '${label}' is used by another mcp tool.`, `${at}.server_label`);
    if (t.connector_id !== undefined)
      throw bad(`${at}.connector_id: connectors are not supported.`, `${at}.connector_id`, 'unsupported_value');
    const url = t.server_url ?? null;
    const id = t.server_id ?? null;
    if ((url === null) === (id === null))
      throw bad(`${at} needs exactly one of server_url and server_id.`, `${at}.server_url`);
    if (url !== null && (typeof url !== 'string' || !/^https?:\/\//i.test(url)))
      throw bad(`${at}.server_url must be an http(s) URL.`, `${at}.server_url`);
    if (id !== null && (typeof id !== 'string' || id === ''))
      throw bad(`${at}.server_id must be a registered MCP server id.`, `${at}.server_id`);
    const headers: Record<string, string> = {};
    if (t.headers !== undefined && t.headers !== null) {
      if (!isRecord(t.headers)) throw bad(`${at}.headers must be an object of strings.`, `${at}.headers`);
      for (const [k, hv] of Object.entries(t.headers)) {
        if (typeof hv !== 'string' || /[\r\n\0]/.test(hv))
          throw bad(`${at}.headers.${k} must be a one-line string.`, `${at}.headers`);
        headers[k] = hv;
      }
    }
    const allowedTools =
      t.allowed_tools === undefined || t.allowed_tools === null
        ? null
        : toolNames(t.allowed_tools, `${at}.allowed_tools`);
    out.push({
      index,
      label,
      url: url as string | null,
      id: id as string | null,
      headers,
      allowedTools,
      approval: approvalPolicy(t.require_approval, `${at}.require_approval`),
      echo: {
        type: 'mcp',
        server_label: label,
        ...(url !== null ? { server_url: url } : {}),
        ...(id !== null ? { server_id: id } : {}),
        allowed_tools: t.allowed_tools ?? null,
        headers: null,
        require_approval: t.require_approval ?? 'always',
        ...(typeof t.server_description === 'string' ? { server_description: t.server_description } : {}),
      },
    });
  });
  return out;
}

/**
 * Splits MCP items out of the input: mcp_approval_response items (answers to the previous
 * response's approval requests) are returned; mcp_list_tools, mcp_call and mcp_approval_request
 * items a client sends back are dropped (the stored conversation already holds them).
 */
export function splitMcpInput(input: unknown): { input: unknown; approvals: McpApprovalAnswer[] } {
  if (!Array.isArray(input)) return { input, approvals: [] };
  const approvals: McpApprovalAnswer[] = [];
  const rest: unknown[] = [];
  input.forEach((item, i) => {
    if (!isRecord(item) || typeof item.type !== 'string' || !MCP_INPUT_TYPES.has(item.type)) {
      rest.push(item);
      return;
    }
    if (item.type !== 'mcp_approval_response') return;
    const at = `input[${i}]`;
    if (typeof item.approval_request_id !== 'string' || item.approval_request_id === '')
      throw bad(`${at}.approval_request_id is required.`, `${at}.approval_request_id`);
    if (typeof item.approve !== 'boolean') throw bad(`${at}.approve must be true or false.`, `${at}.approve`);
    approvals.push({ requestId: item.approval_request_id, approve: item.approve });
  });
  return { input: rest, approvals };
}

/** The model's name of a server's tool (function names allow [a-zA-Z0-9_-], at most 64). */
export function modelToolName(label: string, tool: string): string {
  return `${label}__${tool}`.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64);
}
