import { Injectable, Logger } from '@nestjs/common';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Request, Response } from 'express';
import { ApiError } from '@app/common';
import { CallOrigin, McpGateway, TOOL_NOT_ALLOWED, ToolUser } from './mcp-gateway.service';

const SERVER_INFO = { name: 'model-gateway', version: '1.0.0' };
const INSTRUCTIONS =
  "Tools of the team's MCP servers, named <server>__<tool>; the API key's allowlist decides which are listed and callable.";

/**
 * The gateway's own MCP endpoint on the SDK's Streamable HTTP server transport, stateless: every
 * POST is answered by a fresh protocol server built for the caller (no Mcp-Session-Id), so any
 * replica answers any request (docs/decisions/mcp-stateless-endpoint.md). A call's progress
 * notifications are streamed back (SSE) on the POST that made it.
 */
@Injectable()
export class McpEndpoint {
  private readonly logger = new Logger('McpEndpoint');

  constructor(private readonly gateway: McpGateway) {}

  async handle(user: ToolUser, origin: CallOrigin, req: Request, res: Response): Promise<void> {
    const server = new Server(SERVER_INFO, {
      capabilities: { tools: { listChanged: false } },
      instructions: INSTRUCTIONS,
    });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: await this.gateway.listTools(user) }));
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const token = request.params._meta?.progressToken;
      try {
        return await this.gateway.callTool(user, request.params.name, request.params.arguments, origin, {
          signal: extra.signal,
          onProgress:
            token === undefined
              ? undefined
              : (p) =>
                  void extra
                    .sendNotification({ method: 'notifications/progress', params: { ...p, progressToken: token } })
                    .catch(() => undefined),
        });
      } catch (err) {
        throw rpcError(err);
      }
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close().catch(() => undefined);
      void server.close().catch(() => undefined);
    });
    await server.connect(transport);
    try {
      await transport.handleRequest(req, res, req.body);
    } catch (err) {
      this.logger.error({ err }, 'MCP request not handled');
      if (!res.headersSent)
        res
          .status(500)
          .json({ jsonrpc: '2.0', error: { code: ErrorCode.InternalError, message: 'Internal error' }, id: null });
    }
  }
}

/** Anything a call throws, as the JSON-RPC error the client gets. */
function rpcError(err: unknown): McpError {
  if (err instanceof McpError) return err;
  if (err instanceof ApiError) {
    // a refused hold (402 balance, key budget), a rate limit: the call did not run
    const code =
      err.status === 402 || err.status === 403 || err.status === 429 ? TOOL_NOT_ALLOWED : ErrorCode.InternalError;
    return new McpError(code, err.message, { status: err.status, code: err.code });
  }
  return new McpError(ErrorCode.InternalError, 'The call failed.');
}
