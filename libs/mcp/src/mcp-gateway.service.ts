import { Injectable } from '@nestjs/common';
import { ErrorCode, McpError, type CallToolResult, type Progress, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { Caller, mcpToolAllowed, roleAtLeast, TeamRole } from '@app/auth';
import { BillingService, perCallChargeMicro, perCallHoldMicro } from '@app/billing';
import { ApiError, BackgroundCalls } from '@app/common';
import { McpServerEntity } from './entities/mcp-server.entity';
import { McpServersService, toolsOf } from './mcp-servers.service';
import { McpTarget, McpUpstream, McpUpstreamError } from './mcp-upstream';
import { gatewayToolName, splitGatewayToolName } from './tool-patterns';

/**
 * Who uses the gateway: an API key (its `allowed_mcp_tools`) or a signed-in member (every tool of
 * the team; calling needs the member role, viewers only list).
 */
export interface ToolUser {
  caller: Caller;
  /** a session's role in the team (operators: owner); absent for an API key */
  role?: TeamRole;
}

/** Where a call came from, for its request-log record. */
export interface CallOrigin {
  requestId: string;
  endpoint: string;
  clientIp: string | null;
  userAgent: string | null;
}

export interface CallOptions {
  onProgress?: (p: Progress) => void;
  signal?: AbortSignal;
  /** told what the call charged, µRUB (0 when unpriced, failed or refused) */
  onCharged?: (costMicro: number) => void;
}

/** -32003: a tool the caller may not use (JSON-RPC's implementation-defined server error range). */
export const TOOL_NOT_ALLOWED = -32003;

/**
 * The gateway's tools: the union of the team's registered servers' tools the caller may use, named
 * `<server>__<tool>`, and calls forwarded to the server with its sealed headers — each logged
 * (kind `mcp_tool`) and, when the server is priced, held before and charged after (a refused or
 * failed call is free).
 */
@Injectable()
export class McpGateway {
  constructor(
    private readonly servers: McpServersService,
    private readonly upstream: McpUpstream,
    private readonly billing: BillingService,
    private readonly calls: BackgroundCalls,
  ) {}

  /** The tools the user may see, as tools/list answers them. */
  async listTools(user: ToolUser): Promise<Tool[]> {
    const out: Tool[] = [];
    for (const server of await this.servers.servers(user.caller.teamId))
      for (const t of toolsOf(server)) {
        if (!this.allowed(user, server.name, t.name)) continue;
        out.push({
          name: gatewayToolName(server.name, t.name),
          ...(t.description !== null ? { description: t.description } : {}),
          inputSchema: t.input_schema as Tool['inputSchema'],
        });
      }
    return out;
  }

  /** Calls `<server>__<tool>`; JSON-RPC errors (McpError) for refused calls and unreachable servers. */
  async callTool(
    user: ToolUser,
    name: string,
    args: Record<string, unknown> | undefined,
    origin: CallOrigin,
    opts: CallOptions = {},
  ): Promise<CallToolResult> {
    const parts = splitGatewayToolName(name);
    const server = parts ? await this.servers.findByName(user.caller.teamId, parts.server) : null;
    const refuse = (message: string) => {
      // a refused call is recorded too (403), and never reaches the server
      this.report(user.caller, parts?.server ?? '', parts?.tool ?? name, args, origin, performance.now(), {
        status: 403,
        errorCode: 'tool_not_allowed',
        result: undefined,
        costMicro: 0,
      });
      return new McpError(TOOL_NOT_ALLOWED, message);
    };
    if (!parts || !server || !this.allowed(user, parts.server, parts.tool))
      throw refuse(`Tool '${name}' is not available to this API key.`);
    if (user.role && !roleAtLeast(user.role, 'member'))
      throw refuse(`Calling tools needs the member role in the team (yours: ${user.role}).`);
    return this.forward(user.caller, server, parts.tool, args, origin, opts);
  }

  /**
   * Calls a tool of a registered server (the allowlist already checked), logged and billed. Used by
   * /mcp (and by any other module that runs tools of registered servers).
   */
  async forward(
    caller: Caller,
    server: McpServerEntity,
    tool: string,
    args: Record<string, unknown> | undefined,
    origin: CallOrigin,
    opts: CallOptions = {},
  ): Promise<CallToolResult> {
    const started = performance.now();
    const price = server.pricePerCallMicro;
    const target = await this.servers.target(server);
    const run = () => this.upstream.callTool(target, tool, args, opts.onProgress, opts.signal);
    let result: CallToolResult | undefined;
    let costMicro = 0;
    try {
      if (price > 0) {
        const out = await this.billing.meter({
          teamId: caller.teamId,
          requestId: origin.requestId,
          caller,
          holdMicro: perCallHoldMicro(price),
          run,
          charge: (r) => {
            const cost = perCallChargeMicro(price, r.isError !== true);
            if (cost === 0) return null;
            return {
              costMicro: cost,
              details: {
                endpoint: origin.endpoint,
                model: null,
                apiKeyId: caller.keyPrefix === 'session' ? null : caller.apiKeyId,
                promptTokens: 0,
                completionTokens: 0,
                breakdown: { mcp_server: server.name, mcp_tool: tool },
              },
            };
          },
        });
        result = out.result;
        costMicro = out.charged && !out.charged.alreadyCharged ? out.charged.chargedMicro : 0;
      } else result = await run();
      opts.onCharged?.(costMicro);
      this.report(caller, server.name, tool, args, origin, started, {
        status: 200,
        errorCode: result.isError === true ? 'tool_error' : null,
        result,
        costMicro,
      });
      return result;
    } catch (err) {
      const upstream = err instanceof McpUpstreamError ? err : null;
      this.report(caller, server.name, tool, args, origin, started, {
        status: upstream ? (upstream.reason === 'timeout' ? 504 : 502) : errorStatus(err),
        errorCode: upstream ? `mcp_${upstream.reason}` : errorCode(err),
        result: undefined,
        costMicro: 0,
      });
      if (upstream)
        throw new McpError(ErrorCode.InternalError, upstream.message, { server: server.name, reason: upstream.reason });
      throw err;
    }
  }

  /**
   * A signed-in member's call of one tool of a registered server (the console's test call, by server
   * id): the tool must be one the registry last read (404 otherwise, nothing sent); then the same
   * path as /mcp's tools/call — logged, priced, timed out. A tool error is a result (`isError`); a
   * server that could not answer is a 502 (504 when too slow) in the REST error shape.
   */
  async callServerTool(
    caller: Caller,
    serverId: string,
    tool: string,
    args: Record<string, unknown> | undefined,
    origin: CallOrigin,
  ): Promise<{ result: CallToolResult; costMicro: number; durationMs: number }> {
    const server = await this.servers.findById(caller.teamId, serverId);
    if (!server) throw ApiError.notFound(`MCP server ${serverId} not found.`, 'mcp_server_not_found', 'id');
    if (!toolsOf(server).some((t) => t.name === tool))
      throw ApiError.notFound(
        `MCP server '${server.name}' has no tool '${tool}' (as its tools were last read).`,
        'mcp_tool_not_found',
        'tool',
      );
    const started = performance.now();
    let costMicro = 0;
    try {
      const result = await this.forward(caller, server, tool, args, origin, { onCharged: (m) => (costMicro = m) });
      return { result, costMicro, durationMs: Math.round(performance.now() - started) };
    } catch (err) {
      const reason = err instanceof McpError ? (err.data as { reason?: string } | undefined)?.reason : undefined;
      if (!reason) throw err;
      const message = err instanceof Error ? err.message.replace(/^MCP error -?\d+: /, '') : String(err);
      if (reason === 'timeout') throw new ApiError(504, 'timeout_error', message, 'mcp_timeout');
      throw ApiError.badGateway(message, `mcp_${reason}`);
    }
  }

  /**
   * Calls a tool of a server the team has not registered (a /v1/responses `server_url` the team's
   * setting allows): logged like any call, never charged (it has no price).
   */
  async callUnregistered(
    caller: Caller,
    target: McpTarget,
    tool: string,
    args: Record<string, unknown>,
    origin: CallOrigin,
  ): Promise<CallToolResult> {
    const started = performance.now();
    try {
      const result = await this.upstream.callTool(target, tool, args);
      this.report(caller, target.name, tool, args, origin, started, {
        status: 200,
        errorCode: result.isError === true ? 'tool_error' : null,
        result,
        costMicro: 0,
      });
      return result;
    } catch (err) {
      const upstream = err instanceof McpUpstreamError ? err : null;
      this.report(caller, target.name, tool, args, origin, started, {
        status: upstream ? (upstream.reason === 'timeout' ? 504 : 502) : errorStatus(err),
        errorCode: upstream ? `mcp_${upstream.reason}` : errorCode(err),
        result: undefined,
        costMicro: 0,
      });
      throw err;
    }
  }

  private allowed(user: ToolUser, server: string, tool: string): boolean {
    // a signed-in member sees every tool of the team; an API key what its allowlist names
    return user.role !== undefined || mcpToolAllowed(user.caller.allowedMcpTools, server, tool);
  }

  private report(
    caller: Caller,
    server: string,
    tool: string,
    args: unknown,
    origin: CallOrigin,
    started: number,
    out: { status: number; errorCode: string | null; result: CallToolResult | undefined; costMicro: number },
  ): void {
    const session = caller.keyPrefix === 'session';
    this.calls.reportTool({
      requestId: origin.requestId,
      teamId: caller.teamId,
      apiKeyId: session ? null : caller.apiKeyId,
      keyPrefix: session ? null : caller.keyPrefix,
      sessionUserId: session ? (caller.userId ?? null) : null,
      endpoint: origin.endpoint,
      server,
      tool,
      status: out.status,
      errorCode: out.errorCode,
      latencyMs: performance.now() - started,
      bytes: out.result === undefined ? 0 : Buffer.byteLength(JSON.stringify(out.result)),
      costMicro: out.costMicro,
      arguments: args,
      result: out.result,
      clientIp: origin.clientIp,
      userAgent: origin.userAgent,
    });
  }
}

function errorStatus(err: unknown): number {
  const status = (err as { status?: unknown }).status;
  return typeof status === 'number' ? status : 500;
}

function errorCode(err: unknown): string {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' ? code : 'internal_error';
}
