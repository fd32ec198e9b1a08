import { Injectable } from '@nestjs/common';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CallToolResultSchema, type CallToolResult, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { guardedFetch, GuardedFetch, isSafeFetchError, SafeFetcher } from '@app/common';
import { AppConfig } from '@app/config';

export type McpTransportKind = 'streamable_http' | 'sse';

/** Where to reach a server and with which headers (opened already: plain values). */
export interface McpTarget {
  name: string;
  url: string;
  transport: McpTransportKind;
  headers: Record<string, string>;
}

/** A tool as a server lists it. */
export interface McpToolInfo {
  name: string;
  description: string | null;
  input_schema: Record<string, unknown>;
}

/** A call to an MCP server that did not answer: unreachable, refused by the SSRF guard, too slow, or a protocol error. */
export class McpUpstreamError extends Error {
  constructor(
    readonly server: string,
    readonly reason: 'unreachable' | 'forbidden' | 'timeout' | 'protocol',
    detail: string,
  ) {
    super(`MCP server '${server}' ${reasonText(reason)}: ${detail}`);
  }
}

function reasonText(reason: McpUpstreamError['reason']): string {
  switch (reason) {
    case 'forbidden':
      return 'is not reachable under the outbound address policy';
    case 'timeout':
      return 'did not answer in time';
    case 'protocol':
      return 'answered with an error';
    default:
      return 'is unreachable';
  }
}

const CLIENT_INFO = { name: 'model-gateway', version: '1.0.0' };
/** one page of tools/list at most this many times (a server that pages forever is cut) */
const MAX_TOOL_PAGES = 20;

/**
 * Talks to registered MCP servers with the official SDK's client: one short-lived connection per
 * operation (list or call), every HTTP request through the SSRF guard (redirects refused), within
 * MCP_CALL_TIMEOUT_MS.
 */
@Injectable()
export class McpUpstream {
  private readonly fetch: GuardedFetch;

  constructor(
    fetcher: SafeFetcher,
    private readonly config: AppConfig,
  ) {
    this.fetch = guardedFetch(fetcher, { connectTimeoutMs: Math.min(config.mcp.callTimeoutMs, 10_000) });
  }

  /** Every tool the server lists (all pages). */
  async listTools(target: McpTarget): Promise<McpToolInfo[]> {
    return this.session(target, async (client, timeout) => {
      const tools: McpToolInfo[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < MAX_TOOL_PAGES; page++) {
        const out = await client.listTools(cursor ? { cursor } : undefined, { timeout });
        for (const t of out.tools)
          tools.push({
            name: t.name,
            description: t.description ?? null,
            input_schema: t.inputSchema as Record<string, unknown>,
          });
        cursor = out.nextCursor;
        if (!cursor) break;
      }
      return tools;
    });
  }

  /**
   * Calls a tool and answers its result as the server sent it; `onProgress` gets the server's
   * progress notifications (the timeout restarts with each, up to twice the limit in all).
   */
  async callTool(
    target: McpTarget,
    tool: string,
    args: Record<string, unknown> | undefined,
    onProgress?: (p: Progress) => void,
    signal?: AbortSignal,
  ): Promise<CallToolResult> {
    return this.session(target, async (client, timeout) => {
      const result = await client.callTool({ name: tool, arguments: args ?? {} }, CallToolResultSchema, {
        timeout,
        signal,
        maxTotalTimeout: timeout * 2,
        ...(onProgress ? { onprogress: onProgress, resetTimeoutOnProgress: true } : {}),
      });
      return result as CallToolResult;
    });
  }

  private async session<T>(target: McpTarget, work: (client: Client, timeoutMs: number) => Promise<T>): Promise<T> {
    const timeout = this.config.mcp.callTimeoutMs;
    const client = new Client(CLIENT_INFO, { capabilities: {} });
    const transport = this.transport(target);
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new McpUpstreamError(target.name, 'timeout', `no answer in ${timeout} ms`)),
        timeout * 2,
      );
    });
    try {
      return await Promise.race([
        (async () => {
          await client.connect(transport, { timeout });
          return work(client, timeout);
        })(),
        deadline,
      ]);
    } catch (err) {
      throw upstreamError(target.name, err);
    } finally {
      clearTimeout(timer);
      void client.close().catch(() => undefined);
    }
  }

  private transport(target: McpTarget): Transport {
    const url = new URL(target.url);
    const requestInit: RequestInit = { headers: target.headers };
    return target.transport === 'sse'
      ? new SSEClientTransport(url, {
          requestInit,
          fetch: this.fetch,
          eventSourceInit: { fetch: this.sseFetch(target) },
        })
      : new StreamableHTTPClientTransport(url, { requestInit, fetch: this.fetch });
  }

  /** The SSE stream's own requests carry the server's headers too. */
  private sseFetch(target: McpTarget): GuardedFetch {
    return (url, init) => {
      const headers = new Headers(init?.headers);
      for (const [k, v] of Object.entries(target.headers)) headers.set(k, v);
      return this.fetch(url, { ...init, headers });
    };
  }
}

function upstreamError(server: string, err: unknown): McpUpstreamError {
  if (err instanceof McpUpstreamError) return err;
  if (isSafeFetchError(err)) {
    const forbidden = err.code === 'forbidden_address' || err.code === 'invalid_url' || err.code === 'http_error';
    return new McpUpstreamError(server, forbidden ? 'forbidden' : 'unreachable', err.message);
  }
  const e = err as { code?: unknown; message?: unknown; cause?: unknown };
  const cause = e.cause as { message?: unknown } | undefined;
  const message = String(e.message ?? err) + (cause?.message ? ` (${String(cause.message)})` : '');
  if (e.code === -32001 || /timed? ?out/i.test(message)) return new McpUpstreamError(server, 'timeout', message);
  if (typeof e.code === 'number') return new McpUpstreamError(server, 'protocol', message);
  // the SDK wraps a refused fetch into its own errors: keep the guard's verdict when it is there
  if (isSafeFetchError(e.cause)) return upstreamError(server, e.cause);
  return new McpUpstreamError(server, 'unreachable', message);
}
