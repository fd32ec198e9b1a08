import { Controller, Delete, Get, HttpCode, Post, Req, Res } from '@nestjs/common';
import {
  ApiBody,
  ApiOkResponse,
  ApiOperation,
  ApiProduces,
  ApiResponse,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { AllowSession, ApiKeyAuth, Caller, CurrentCaller, sessionOf } from '@app/auth';
import { ApiError, requestContextOf } from '@app/common';
import { JsonRpcMessageDto } from './dto/json-rpc.dto';
import { McpEndpoint } from './mcp-endpoint';
import { ToolUser } from './mcp-gateway.service';

/** The gateway's own MCP server (Streamable HTTP): the team's allowed tools behind one endpoint and one API key. */
@ApiTags('MCP')
@ApiKeyAuth()
@AllowSession('viewer')
@Controller('mcp')
export class McpEndpointController {
  constructor(private readonly endpoint: McpEndpoint) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary: 'MCP Streamable HTTP: initialize, tools/list, tools/call (JSON-RPC; answered as JSON or an SSE stream)',
  })
  @ApiBody({ type: JsonRpcMessageDto })
  @ApiProduces('application/json', 'text/event-stream')
  @ApiOkResponse({
    content: {
      'application/json': { schema: { $ref: getSchemaPath(JsonRpcMessageDto) } },
      'text/event-stream': { schema: { $ref: getSchemaPath(JsonRpcMessageDto) } },
    },
  })
  @ApiResponse({ status: 202, description: 'A notification or response was accepted (no body)' })
  async post(@CurrentCaller() caller: Caller, @Req() req: Request, @Res() res: Response): Promise<void> {
    await this.endpoint.handle(toolUser(req, caller), origin(req, res), req, res);
  }

  @Get()
  @ApiOperation({ summary: 'Not offered: the endpoint is stateless, so there is no stream to open (405)' })
  @ApiResponse({ status: 405, description: 'method_not_allowed' })
  get(): never {
    throw stateless();
  }

  @Delete()
  @ApiOperation({ summary: 'Not offered: the endpoint is stateless, so there is no session to end (405)' })
  @ApiResponse({ status: 405, description: 'method_not_allowed' })
  remove(): never {
    throw stateless();
  }
}

/** GET and DELETE of a stateless Streamable HTTP endpoint: 405, which clients take as "no standalone stream". */
function stateless(): ApiError {
  return new ApiError(
    405,
    'invalid_request_error',
    'The MCP endpoint is stateless: send JSON-RPC messages with POST.',
    'method_not_allowed',
    null,
    { allow: 'POST' },
  );
}

function toolUser(req: Request, caller: Caller): ToolUser {
  const session = sessionOf(req);
  if (!session) return { caller };
  return { caller, role: session.operator ? 'owner' : session.roles[caller.teamId] };
}

function origin(
  req: Request,
  res: Response,
): { requestId: string; endpoint: string; clientIp: string | null; userAgent: string | null } {
  return {
    requestId: requestContextOf(res)?.requestId ?? String(res.getHeader('x-request-id') ?? ''),
    endpoint: '/mcp',
    clientIp: req.ip ?? null,
    userAgent: req.headers['user-agent'] ?? null,
  };
}
