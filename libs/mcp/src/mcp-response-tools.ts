import { Injectable } from '@nestjs/common';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ApiError, isSafeFetchError, SafeFetcher } from '@app/common';
import { Caller, mcpToolAllowed } from '@app/auth';
import { TeamsService } from '@app/billing';
import {
  McpCallOrigin,
  McpListedTool,
  McpServerHandle,
  McpServerSpec,
  McpToolHost,
  McpToolOutcome,
} from '@app/chat/mcp/ports';
import { McpServerEntity } from './entities/mcp-server.entity';
import { McpGateway, TOOL_NOT_ALLOWED } from './mcp-gateway.service';
import { McpServersService, toolsOf } from './mcp-servers.service';
import { McpTarget, McpUpstream } from './mcp-upstream';

/** A registered server of the team, or an ad-hoc URL the team's setting allows. */
type Handle = McpServerHandle &
  ({ kind: 'registered'; server: McpServerEntity } | { kind: 'adhoc'; target: McpTarget });

/**
 * The remote MCP tools of /v1/responses, bound to chat's McpToolHost port: registered servers are
 * called with their sealed headers, within the caller's tool allowlist, logged and priced as /mcp
 * calls them; an unregistered `server_url` only when the team's `mcp_adhoc_servers` setting is on
 * and the URL passes the outbound address policy (logged, never charged).
 */
@Injectable()
export class McpResponseTools extends McpToolHost {
  constructor(
    private readonly servers: McpServersService,
    private readonly upstream: McpUpstream,
    private readonly gateway: McpGateway,
    private readonly teams: TeamsService,
    private readonly fetcher: SafeFetcher,
  ) {
    super();
  }

  async resolve(caller: Caller, spec: McpServerSpec): Promise<McpServerHandle> {
    const at = `tools[${spec.index}]`;
    if (spec.id !== null) {
      const server = await this.servers.findById(caller.teamId, spec.id);
      if (!server)
        throw ApiError.badRequest(
          `No MCP server ${spec.id} is registered for this team.`,
          `${at}.server_id`,
          'mcp_server_not_found',
        );
      return { label: spec.label, kind: 'registered', server } as Handle;
    }
    const url = spec.url!;
    const registered = (await this.servers.servers(caller.teamId)).find((s) => s.url === url);
    if (registered) return { label: spec.label, kind: 'registered', server: registered } as Handle;
    if (!(await this.teams.get(caller.teamId)).mcpAdhocServers)
      throw ApiError.badRequest(
        `${url} is not a registered MCP server of this team, and the team does not allow unregistered servers (team setting mcp_adhoc_servers).`,
        `${at}.server_url`,
        'mcp_server_not_registered',
      );
    try {
      await this.fetcher.vetUrl(url);
    } catch (err) {
      if (isSafeFetchError(err))
        throw ApiError.badRequest(
          `The MCP server URL is refused: ${err.message}`,
          `${at}.server_url`,
          `url_${err.code}`,
        );
      throw err;
    }
    const target: McpTarget = { name: spec.label, url, transport: 'streamable_http', headers: spec.headers };
    return { label: spec.label, kind: 'adhoc', target } as Handle;
  }

  async listTools(caller: Caller, server: McpServerHandle): Promise<McpListedTool[]> {
    const h = server as Handle;
    if (h.kind === 'adhoc') return this.upstream.listTools(h.target);
    // the tools the registry last read; an API key sees those its allowlist names
    return toolsOf(h.server).filter((t) => this.allowed(caller, h.server.name, t.name));
  }

  async callTool(
    caller: Caller,
    server: McpServerHandle,
    tool: string,
    args: Record<string, unknown>,
    origin: McpCallOrigin,
  ): Promise<McpToolOutcome> {
    const h = server as Handle;
    const from = { ...origin, clientIp: null, userAgent: null };
    let costMicro = 0;
    try {
      if (h.kind === 'adhoc')
        return outcome(await this.gateway.callUnregistered(caller, h.target, tool, args, from), 0);
      if (!this.allowed(caller, h.server.name, tool))
        return {
          output: null,
          error: {
            type: 'mcp_protocol_error',
            code: TOOL_NOT_ALLOWED,
            message: `Tool '${tool}' is not available to this API key.`,
          },
          costMicro: 0,
        };
      const result = await this.gateway.forward(caller, h.server, tool, args, from, {
        onCharged: (micro) => (costMicro = micro),
      });
      return outcome(result, costMicro);
    } catch (err) {
      if (err instanceof ApiError) throw err; // the caller's balance or budget: the request fails
      const code = (err as { code?: unknown }).code;
      return {
        output: null,
        error: {
          type: 'mcp_protocol_error',
          code: typeof code === 'number' ? code : -32603,
          message: err instanceof Error ? err.message : String(err),
        },
        costMicro: 0,
      };
    }
  }

  private allowed(caller: Caller, server: string, tool: string): boolean {
    return caller.keyPrefix === 'session' || mcpToolAllowed(caller.allowedMcpTools, server, tool);
  }
}

/** The result's text parts as the output (a tool error as the error); other content as JSON. */
function outcome(result: CallToolResult, costMicro: number): McpToolOutcome {
  const text = result.content.map((c) => (c.type === 'text' ? c.text : JSON.stringify(c))).join('\n');
  return result.isError === true
    ? { output: null, error: { type: 'mcp_tool_execution_error', content: result.content }, costMicro }
    : { output: text, error: null, costMicro };
}
