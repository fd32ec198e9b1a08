import { ApiPropertyOptional } from '@nestjs/swagger';

export class JsonRpcErrorDto {
  @ApiPropertyOptional({ example: -32003 }) code: number;
  @ApiPropertyOptional({ example: "Tool 'github__delete_repo' is not available to this API key." }) message: string;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true }) data?: Record<string, unknown>;
}

/**
 * A JSON-RPC 2.0 message of the Model Context Protocol (a request, a response, or a notification),
 * as the /mcp endpoint answers it in a JSON body or as the data of an SSE event.
 */
export class JsonRpcMessageDto {
  @ApiPropertyOptional({ example: '2.0' }) jsonrpc: '2.0';
  @ApiPropertyOptional({ oneOf: [{ type: 'string' }, { type: 'number' }], nullable: true, example: 1 })
  id?: string | number | null;
  @ApiPropertyOptional({ description: 'Notifications (notifications/progress)', example: 'notifications/progress' })
  method?: string;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true }) params?: Record<string, unknown>;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description:
      'initialize: server info and capabilities; tools/list: {tools}; tools/call: the server’s result unchanged',
  })
  result?: Record<string, unknown>;
  @ApiPropertyOptional({ type: JsonRpcErrorDto }) error?: JsonRpcErrorDto;
}
