import { Controller, Delete, Get, HttpCode, Post, Req, Res } from '@nestjs/common';
import {
  ApiBody,
  ApiExcludeEndpoint,
  ApiOkResponse,
  ApiOperation,
  ApiProduces,
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
    description:
      'A message without an id (a notification, or a response to the server) is accepted with 202 and no body. GET and DELETE answer 405: the endpoint is stateless, so there is no stream to open and no session to end.',
  })
  @ApiBody({
    type: JsonRpcMessageDto,
    examples: {
      'tools/list': {
        summary: 'The tools this key may call',
        value: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
      },
    },
  })
  @ApiProduces('application/json', 'text/event-stream')
  @ApiOkResponse({
    content: {
      'application/json': { schema: { $ref: getSchemaPath(JsonRpcMessageDto) } },
      'text/event-stream': { schema: { $ref: getSchemaPath(JsonRpcMessageDto) } },
    },
  })
  async post(@CurrentCaller() caller: Caller, @Req() req: Request, @Res() res: Response): Promise<void> {
    await this.endpoint.handle(toolUser(req, caller), origin(req, res), req, res);
  }

  @Get()
  @ApiExcludeEndpoint()
  get(): never {
    throw stateless();
  }

  @Delete()
  @ApiExcludeEndpoint()
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
