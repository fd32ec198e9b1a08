import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import { PeopleAuth, TeamAccess } from '@app/accounts';
import { RefuseUnknownMembers } from '@app/common';
import {
  CreateMcpServerDto,
  McpServerDto,
  McpServerListDto,
  McpToolListDto,
  UpdateMcpServerDto,
} from './dto/mcp-servers.dto';
import { McpServersService } from './mcp-servers.service';

/** A team's registered MCP servers: owners and admins (and operators) change them, every member reads them. */
@ApiTags('MCP')
@PeopleAuth()
@Controller('api/v1/teams/:team_id/mcp-servers')
export class McpServersController {
  constructor(private readonly servers: McpServersService) {}

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
}
