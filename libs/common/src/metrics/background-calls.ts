import { Injectable } from '@nestjs/common';

/** A model call made by background work (not an HTTP request), as the request log records it. */
export interface BackgroundCall {
  requestId: string;
  teamId: string;
  /** what ran, e.g. "knowledge-base ingestion" */
  endpoint: string;
  model: string | null;
  status: number;
  errorCode: string | null;
  inputTokens: number;
  costMicro: number;
  latencyMs: number;
  knowledgeBaseId: string | null;
  /** USD-priced models: the CBR rate and its date the charge used */
  fx?: { rate: number; date: string } | null;
}

/** A tool call through the MCP gateway, as the request log records it (kind `mcp_tool`). */
export interface ToolCallReport {
  /** the HTTP request's id (x-request-id) */
  requestId: string;
  teamId: string;
  apiKeyId: string | null;
  keyPrefix: string | null;
  sessionUserId: string | null;
  /** what the tool was reached through, e.g. "/mcp" or "/v1/responses" */
  endpoint: string;
  server: string;
  tool: string;
  /** 200 answered (also a tool's own error: errorCode `tool_error`), 403 not allowed, 502/504 server down/slow */
  status: number;
  errorCode: string | null;
  latencyMs: number;
  /** bytes of the result (JSON) */
  bytes: number;
  costMicro: number;
  /** stored only at the team's `full` body level, redacted and capped */
  arguments: unknown;
  result: unknown;
  clientIp: string | null;
  userAgent: string | null;
}

/**
 * Where background work reports its model calls (knowledge-base ingestion embeds chunks outside any
 * HTTP request). The request log plugs its sink in when it starts; without one, reports go nowhere.
 */
@Injectable()
export class BackgroundCalls {
  private sink: ((call: BackgroundCall) => void) | null = null;
  private toolSink: ((call: ToolCallReport) => void) | null = null;

  use(sink: ((call: BackgroundCall) => void) | null, toolSink: ((call: ToolCallReport) => void) | null = null): void {
    this.sink = sink;
    this.toolSink = toolSink;
  }

  /** A tool call through the MCP gateway. Never throws. */
  reportTool(call: ToolCallReport): void {
    try {
      this.toolSink?.(call);
    } catch {
      /* the log never fails the call */
    }
  }

  /** Never throws. */
  report(call: BackgroundCall): void {
    try {
      this.sink?.(call);
    } catch {
      /* the log never fails the work */
    }
  }
}
