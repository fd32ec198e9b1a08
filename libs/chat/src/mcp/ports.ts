/**
 * The port the Responses API's remote MCP tools consume, declared here as an abstract class (the DI
 * token) and bound by the MCP module (`{ provide: McpToolHost, useExisting: … }`). This file imports
 * types only, so the binding module imports it without importing chat (docs/decisions/chat-context-ports.md).
 */
import type { Caller } from '@app/auth';

/** One `{type: "mcp"}` tool of a request, validated: where the server is and what the request may use. */
export interface McpServerSpec {
  /** `tools[index]`: the param errors about this server name */
  index: number;
  label: string;
  /** exactly one of url and id */
  url: string | null;
  id: string | null;
  /** headers the request sends to the server (e.g. its authorization) */
  headers: Record<string, string>;
}

/** A resolved server: opaque to chat, handed back to the host unchanged. */
export interface McpServerHandle {
  readonly label: string;
}

export interface McpListedTool {
  name: string;
  description: string | null;
  input_schema: Record<string, unknown>;
}

/** Why a tool call failed, as OpenAI's mcp_call item names it. */
export type McpCallError =
  | { type: 'mcp_protocol_error'; code: number; message: string }
  | { type: 'mcp_tool_execution_error'; content: unknown }
  | { type: 'http_error'; code: number; message: string };

/** A tool call's result: the output text, or why the call failed. */
export interface McpToolOutcome {
  output: string | null;
  error: McpCallError | null;
  /** what the call charged (a priced registered server), µRUB */
  costMicro?: number;
}

export interface McpCallOrigin {
  requestId: string;
  endpoint: string;
}

export abstract class McpToolHost {
  /**
   * The server a request names: a registered server of the team (by id, or by its URL), or an ad-hoc
   * URL when the team allows them and the outbound address policy does. Throws the API's 400 naming
   * `tools[i].…` before any call to the server.
   */
  abstract resolve(caller: Caller, spec: McpServerSpec): Promise<McpServerHandle>;
  /** The server's tools the caller may use; throws an Error saying why they could not be listed. */
  abstract listTools(caller: Caller, server: McpServerHandle): Promise<McpListedTool[]>;
  /** Calls a tool (logged, and charged when the server is priced); failures are an outcome, not a throw. */
  abstract callTool(
    caller: Caller,
    server: McpServerHandle,
    tool: string,
    args: Record<string, unknown>,
    origin: McpCallOrigin,
  ): Promise<McpToolOutcome>;
}
