import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Req, Res } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { CurrentPrincipal, PeopleAuth, Principal, TeamAccess } from '@app/accounts';
import type { Caller } from '@app/auth';
import { microToRub, RefuseUnknownMembers, requestContextOf } from '@app/common';
import {
  CallMcpToolDto,
  CreateMcpServerDto,
  McpServerDto,
  McpServerListDto,
  McpToolCallResultDto,
  McpToolListDto,
  UpdateMcpServerDto,
} from './dto/mcp-servers.dto';
import { McpGateway } from './mcp-gateway.service';
import { McpServersService } from './mcp-servers.service';

/** A team's registered MCP servers: owners and admins (and operators) change them, every member reads them. */
@ApiTags('MCP')
@PeopleAuth()
@Controller('api/v1/teams/:team_id/mcp-servers')
export class McpServersController {
  constructor(
    private readonly servers: McpServersService,
    private readonly gateway: McpGateway,
  ) {}

  @Post()
  @TeamAccess('admin')
  @RefuseUnknownMembers(CreateMcpServerDto)
  @ApiOperation({ summary: 'Register an MCP server (its tools are read at once; headers are stored encrypted)' })
  @ApiCreatedResponse({ type: McpServerDto })
  @ApiResponse({ status: 400, description: 'Invalid server, header, or a URL the SSRF guard refuses' })
  @ApiResponse({ status: 409, description: 'mcp_server_name_taken' })
  create(@Param('team_id') teamId: string, @Body() body: CreateMcpServerDto): Promise<McpServerDto> {
    return this.servers.create(teamId.toLowerCase(), body);
  }

  @Get()
  @TeamAccess('viewer')
  @ApiOperation({ summary: "The team's MCP servers" })
  @ApiOkResponse({ type: McpServerListDto })
  list(@Param('team_id') teamId: string): Promise<McpServerListDto> {
    return this.servers.list(teamId.toLowerCase());
  }

  @Get(':id')
  @TeamAccess('viewer')
  @ApiOperation({ summary: 'One MCP server' })
  @ApiOkResponse({ type: McpServerDto })
  get(@Param('team_id') teamId: string, @Param('id') id: string): Promise<McpServerDto> {
    return this.servers.get(teamId.toLowerCase(), id);
  }

  @Patch(':id')
  @TeamAccess('admin')
  @RefuseUnknownMembers(UpdateMcpServerDto)
  @ApiOperation({ summary: 'Edit an MCP server (a new URL, transport or headers reads its tools again)' })
  @ApiOkResponse({ type: McpServerDto })
  @ApiResponse({ status: 409, description: 'mcp_server_name_taken' })
  update(
    @Param('team_id') teamId: string,
    @Param('id') id: string,
    @Body() body: UpdateMcpServerDto,
  ): Promise<McpServerDto> {
    return this.servers.update(teamId.toLowerCase(), id, body);
  }

  @Delete(':id')
  @TeamAccess('admin')
  @HttpCode(204)
  @ApiOperation({ summary: 'Remove an MCP server' })
  @ApiNoContentResponse()
  async remove(@Param('team_id') teamId: string, @Param('id') id: string): Promise<void> {
    await this.servers.remove(teamId.toLowerCase(), id);
  }

  @Post(':id/refresh')
  @TeamAccess('admin')
  @HttpCode(200)
  @ApiOperation({ summary: "Read the server's tools again (status error when it cannot be reached)" })
  @ApiOkResponse({ type: McpServerDto })
  refresh(@Param('team_id') teamId: string, @Param('id') id: string): Promise<McpServerDto> {
    return this.servers.refresh(teamId.toLowerCase(), id);
  }

  @Get(':id/tools')
  @TeamAccess('viewer')
  @ApiOperation({ summary: 'The tools read from the server at its last refresh' })
  @ApiOkResponse({ type: McpToolListDto })
  tools(@Param('team_id') teamId: string, @Param('id') id: string): Promise<McpToolListDto> {
    return this.servers.tools(teamId.toLowerCase(), id);
  }

  @Post(':id/tools/:tool/call')
  @TeamAccess('member')
  @HttpCode(200)
  @RefuseUnknownMembers(CallMcpToolDto)
  @ApiOperation({
    summary: 'Call one tool of the server as the signed-in member (the console’s test call)',
    description:
      'The same path as tools/call on /mcp: logged (request-log kind mcp_tool), held and charged at the server’s price (a tool error or a failed call is free), within MCP_CALL_TIMEOUT_MS. Members, admins, owners and operators; viewers get 403. A tool error is a 200 with is_error; a server that cannot be reached answers 502 (mcp_unreachable, mcp_forbidden, mcp_protocol), one too slow 504 (mcp_timeout).',
  })
  @ApiParam({ name: 'tool', description: 'The tool’s name on its server', example: 'echo' })
  @ApiOkResponse({ type: McpToolCallResultDto })
  @ApiResponse({ status: 404, description: 'mcp_server_not_found, mcp_tool_not_found (not among the tools last read)' })
  @ApiResponse({ status: 502, description: 'mcp_unreachable, mcp_forbidden, mcp_protocol' })
  @ApiResponse({ status: 504, description: 'mcp_timeout' })
  async callTool(
    @CurrentPrincipal() principal: Principal,
    @Param('team_id') teamId: string,
    @Param('id') id: string,
    @Param('tool') tool: string,
    @Body() body: CallMcpToolDto,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<McpToolCallResultDto> {
    const caller = callerOf(principal, teamId.toLowerCase());
    const out = await this.gateway.callServerTool(caller, id, tool, body.arguments, {
      requestId: requestContextOf(res)?.requestId ?? String(res.getHeader('x-request-id') ?? ''),
      endpoint: '/api/v1/teams/{team_id}/mcp-servers/{id}/tools/{tool}/call',
      clientIp: req.ip ?? null,
      userAgent: req.headers['user-agent'] ?? null,
    });
    return {
      content: out.result.content as Record<string, unknown>[],
      structured_content: (out.result.structuredContent as Record<string, unknown> | undefined) ?? null,
      is_error: out.result.isError === true,
      duration_ms: out.durationMs,
      cost_rub: microToRub(out.costMicro),
    };
  }
}

/** Who a console call acts as: the signed-in user (logged and charged as a session), or the operator token. */
function callerOf(p: Principal, teamId: string): Caller {
  if (p.kind === 'session')
    return { teamId, apiKeyId: p.session.userId, keyPrefix: 'session', userId: p.session.userId };
  return { teamId, apiKeyId: 'operator-token', keyPrefix: 'session' };
}
