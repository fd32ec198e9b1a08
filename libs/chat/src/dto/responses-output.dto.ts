import { ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { CostBreakdownDto, PageQueryDto } from '@app/common';

/** A file citation on an answer's text (file_search): the file and the character position it belongs to. */
export class ResponseFileCitationDto {
  @ApiProperty({ enum: ['file_citation'], example: 'file_citation' }) type: 'file_citation';
  @ApiProperty({ example: 'file-7a1b2c3d4e5f' }) file_id: string;
  @ApiProperty({ example: 'handbook.pdf' }) filename: string;
  @ApiProperty({ example: 57, description: 'Character position in the text the citation belongs to' }) index: number;
}

/** One file_search result (with include: ["file_search_call.results"]). */
export class ResponseFileSearchResultDto {
  @ApiProperty({ example: 'file-7a1b2c3d4e5f' }) file_id: string;
  @ApiProperty({ example: 'handbook.pdf' }) filename: string;
  @ApiProperty({ example: 'The secret launch codename is BLUE HERON.' }) text: string;
  @ApiProperty({ example: 0.42, description: 'Cosine of the query and the fragment' }) score: number;
  @ApiProperty({
    type: 'object',
    nullable: true,
    additionalProperties: true,
    example: null,
    description: "The file's attributes in its vector store",
  })
  attributes: Record<string, unknown> | null;
}

export class ResponseOutputTextDto {
  @ApiProperty({ example: 'output_text' }) type: 'output_text';
  @ApiProperty({ example: 'Hello!' }) text: string;
  @ApiProperty({
    type: [ResponseFileCitationDto],
    example: [],
    description: 'file_citation annotations when the file_search tool found the sources the text uses',
  })
  annotations: ResponseFileCitationDto[];
  @ApiProperty({ type: 'array', items: { type: 'object' }, example: [] }) logprobs: unknown[];
}

/** A tool an MCP server lists (mcp_list_tools items). */
export class ResponseMcpToolDto {
  @ApiProperty({ example: 'echo' }) name: string;
  @ApiProperty({ type: String, nullable: true, example: 'Echoes its input' }) description: string | null;
  @ApiProperty({ type: 'object', additionalProperties: true, example: { type: 'object' } })
  input_schema: Record<string, unknown>;
  @ApiProperty({ type: 'object', nullable: true, additionalProperties: true, example: null }) annotations: Record<
    string,
    unknown
  > | null;
}

/** Why an mcp_call failed: a protocol error, the tool's own error (its content), or an HTTP error. */
export class ResponseMcpCallErrorDto {
  @ApiProperty({
    enum: ['mcp_protocol_error', 'mcp_tool_execution_error', 'http_error'],
    example: 'mcp_protocol_error',
  })
  type: string;
  @ApiPropertyOptional({ example: -32603 }) code?: number;
  @ApiPropertyOptional({ example: "MCP server 'tools' is unreachable: fetch failed" }) message?: string;
  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'object', additionalProperties: true },
    description: 'mcp_tool_execution_error: the content the tool answered',
    example: [{ type: 'text', text: 'boom' }],
  })
  content?: unknown;
}

/**
 * An output item: a message ({type: "message"}), a function call ({type: "function_call"}), the
 * file_search tool's search ({type: "file_search_call"}, before the message), or a remote MCP
 * tool's items: mcp_list_tools (a server's tools), mcp_call (a tool run: arguments, output or
 * error) and mcp_approval_request (a call waiting for the caller's mcp_approval_response).
 */
export class ResponseOutputItemDto {
  @ApiProperty({ example: 'msg_6f0c0a2b9d3e4c51a7b8c9d0e1f2a3b4' }) id: string;
  @ApiProperty({
    enum: ['message', 'function_call', 'file_search_call', 'mcp_list_tools', 'mcp_call', 'mcp_approval_request'],
    example: 'message',
  })
  type: 'message' | 'function_call' | 'file_search_call' | 'mcp_list_tools' | 'mcp_call' | 'mcp_approval_request';
  @ApiPropertyOptional({
    enum: ['completed', 'incomplete', 'in_progress', 'searching', 'failed'],
    example: 'completed',
    description: 'every item but mcp_list_tools and mcp_approval_request',
  })
  status?: string;
  @ApiPropertyOptional({ example: 'docs', description: 'mcp_* items: the label of the MCP server' })
  server_label?: string;
  @ApiPropertyOptional({ type: [ResponseMcpToolDto], description: 'mcp_list_tools items: the tools offered' })
  tools?: ResponseMcpToolDto[];
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: 'hello',
    description: 'mcp_call items: what the tool answered (its text), null until it ran or when it failed',
  })
  output?: string | null;
  @ApiPropertyOptional({
    nullable: true,
    description: 'mcp_call: why the call failed; mcp_list_tools: why the tools could not be listed (a string)',
    oneOf: [{ $ref: getSchemaPath(ResponseMcpCallErrorDto) }, { type: 'string' }],
  })
  error?: ResponseMcpCallErrorDto | string | null;
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: null,
    description: 'mcp_call items run after an approval: the mcp_approval_request they answer',
  })
  approval_request_id?: string | null;
  @ApiPropertyOptional({ example: 'assistant' }) role?: 'assistant';
  @ApiPropertyOptional({ type: [ResponseOutputTextDto] }) content?: ResponseOutputTextDto[];
  @ApiPropertyOptional({ example: 'call_abc123', description: 'function_call items' }) call_id?: string;
  @ApiPropertyOptional({ example: 'get_weather', description: 'function_call and mcp_* items: the tool' })
  name?: string;
  @ApiPropertyOptional({ example: '{"city":"Paris"}', description: 'function_call and mcp_* items: JSON text' })
  arguments?: string;
  @ApiPropertyOptional({
    type: [String],
    example: ['What is the launch codename?'],
    description: 'file_search_call items: the queries searched',
  })
  queries?: string[];
  @ApiPropertyOptional({
    type: [ResponseFileSearchResultDto],
    nullable: true,
    example: null,
    description: 'file_search_call items: the results with include: ["file_search_call.results"], otherwise null',
  })
  results?: ResponseFileSearchResultDto[] | null;
}

export class ResponseInputTokensDetailsDto {
  @ApiProperty({ example: 0 }) cached_tokens: number;
  @ApiProperty({ example: 0, description: 'Input tokens written to the provider-side cache' })
  cache_write_tokens: number;
}

export class ResponseOutputTokensDetailsDto {
  @ApiProperty({ example: 0 }) reasoning_tokens: number;
}

export class ResponseUsageDto {
  @ApiProperty({ example: 21 }) input_tokens: number;
  @ApiProperty({ type: ResponseInputTokensDetailsDto }) input_tokens_details: ResponseInputTokensDetailsDto;
  @ApiProperty({ example: 8 }) output_tokens: number;
  @ApiProperty({ type: ResponseOutputTokensDetailsDto }) output_tokens_details: ResponseOutputTokensDetailsDto;
  @ApiProperty({ example: 29 }) total_tokens: number;
}

export class ResponseReasoningDto {
  @ApiProperty({ type: String, nullable: true, example: null }) effort: string | null;
  @ApiProperty({ type: String, nullable: true, example: null }) summary: string | null;
}

/** The `response` object (non-stream answer, and the payload of response.created / response.completed). */
export class ResponseObjectDto {
  @ApiProperty({ example: 'resp_6f0c0a2b9d3e4c51a7b8c9d0e1f2a3b4' }) id: string;
  @ApiProperty({ example: 'response' }) object: 'response';
  @ApiProperty({ example: 1767225600 }) created_at: number;
  @ApiProperty({ enum: ['completed', 'incomplete', 'in_progress', 'failed'], example: 'completed' }) status: string;
  @ApiProperty({ nullable: true, type: 'object', additionalProperties: true, example: null }) error: unknown;
  @ApiProperty({
    nullable: true,
    type: 'object',
    additionalProperties: true,
    example: null,
    description: '{reason: "max_output_tokens"} when the output was cut',
  })
  incomplete_details: unknown;
  @ApiProperty({ nullable: true, type: String, example: 'Be brief.' }) instructions: string | null;
  @ApiProperty({ nullable: true, type: Number, example: 64 }) max_output_tokens: number | null;
  @ApiProperty({ example: 'local' }) model: string;
  @ApiProperty({ type: [ResponseOutputItemDto] }) output: ResponseOutputItemDto[];
  @ApiProperty({ example: true }) parallel_tool_calls: boolean;
  @ApiProperty({ nullable: true, type: Number, example: 0.7 }) temperature: number | null;
  @ApiProperty({ nullable: true, type: Number, example: 1 }) top_p: number | null;
  @ApiProperty({
    oneOf: [{ type: 'string' }, { type: 'object', additionalProperties: true }],
    example: 'auto',
    description: 'As requested',
  })
  tool_choice: unknown;
  @ApiProperty({ type: 'array', items: { type: 'object' }, example: [] }) tools: unknown[];
  @ApiProperty({ type: 'object', additionalProperties: true, example: { format: { type: 'text' } } }) text: unknown;
  @ApiProperty({ example: false }) store: boolean;
  @ApiProperty({ example: false, description: 'Background mode is not supported: always false' }) background: boolean;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Not supported: always null',
    example: null,
  })
  previous_response_id: string | null;
  @ApiProperty({ type: ResponseReasoningDto }) reasoning: ResponseReasoningDto;
  @ApiProperty({ example: 'default' }) service_tier: string;
  @ApiProperty({ enum: ['auto', 'disabled'], example: 'disabled' }) truncation: string;
  @ApiPropertyOptional({ type: String, nullable: true, description: 'As requested', example: 'user-42' })
  user?: string | null;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' }, example: {} }) metadata: Record<
    string,
    string
  >;
  @ApiPropertyOptional({ type: ResponseUsageDto, nullable: true, description: 'Token usage, once known' })
  usage?: ResponseUsageDto | null;
  @ApiPropertyOptional({
    type: CostBreakdownDto,
    description: 'Gateway extension: what the ledger charged (on the final object)',
  })
  cost?: CostBreakdownDto;
}

/** One Responses streaming event (`event: <type>` + `data: {type, sequence_number, …}`). */
export class ResponseStreamEventDto {
  @ApiProperty({
    example: 'response.output_text.delta',
    description:
      'response.created, response.in_progress, response.output_item.added, response.content_part.added, response.output_text.delta, response.output_text.done, response.content_part.done, response.function_call_arguments.delta, response.function_call_arguments.done, response.file_search_call.in_progress, response.file_search_call.searching, response.file_search_call.completed, response.output_text.annotation.added, response.mcp_list_tools.in_progress, response.mcp_list_tools.completed (failed), response.mcp_call.in_progress, response.mcp_call_arguments.delta, response.mcp_call_arguments.done, response.mcp_call.completed (failed), response.output_item.done, response.completed (or response.incomplete); error on an upstream failure mid-stream',
  })
  type: string;
  @ApiProperty({ example: 4 }) sequence_number: number;
  @ApiPropertyOptional({ type: ResponseObjectDto, description: 'response.created / in_progress / completed' })
  response?: ResponseObjectDto;
  @ApiPropertyOptional({ example: 0 }) output_index?: number;
  @ApiPropertyOptional({ example: 'msg_6f0c0a2b9d3e4c51a7b8c9d0e1f2a3b4' }) item_id?: string;
  @ApiPropertyOptional({ example: 0 }) content_index?: number;
  @ApiPropertyOptional({ example: 'Hel', description: 'output_text.delta, function_call_arguments.delta' })
  delta?: string;
  @ApiPropertyOptional({ type: ResponseOutputItemDto, description: 'output_item.added / output_item.done' })
  item?: ResponseOutputItemDto;
  @ApiPropertyOptional({ type: ResponseOutputTextDto, description: 'content_part.added / content_part.done' })
  part?: ResponseOutputTextDto;
  @ApiPropertyOptional({ example: 'Hello!', description: 'output_text.done: the whole text' }) text?: string;
  @ApiPropertyOptional({ example: '{"city":"Paris"}', description: 'function_call_arguments.done' })
  arguments?: string;
  @ApiPropertyOptional({ example: 'get_weather', description: 'function_call_arguments.done: the function' })
  name?: string;
  @ApiPropertyOptional({ type: 'array', items: { type: 'object' }, example: [], description: 'output_text events' })
  logprobs?: unknown[];
  @ApiPropertyOptional({ example: 0, description: 'output_text.annotation.added: the annotation’s position' })
  annotation_index?: number;
  @ApiPropertyOptional({ type: ResponseFileCitationDto, description: 'output_text.annotation.added' })
  annotation?: ResponseFileCitationDto;
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: 'upstream_error',
    description: 'error: the error code',
  })
  code?: string | null;
  @ApiPropertyOptional({ example: 'The provider failed.', description: 'error: what went wrong' }) message?: string;
  @ApiPropertyOptional({ type: String, nullable: true, example: null, description: 'error: the field at fault' })
  param?: string | null;
}

/** after (an item id), limit 1–100, order (default desc) — the cursor page of every /v1 list. */
export class InputItemsQueryDto extends PageQueryDto {}

export class ResponseDeletedDto {
  @ApiProperty({ example: 'resp_6f0c0a2b9d3e4c51a7b8c9d0e1f2a3b4' }) id: string;
  @ApiProperty({ example: 'response' }) object: 'response';
  @ApiProperty({ example: true }) deleted: true;
}

export class ResponseInputItemListDto {
  @ApiProperty({ example: 'list' }) object: 'list';
  @ApiProperty({
    type: 'array',
    items: { type: 'object', additionalProperties: true },
    description: 'Input items: message, function_call, function_call_output (each with an id)',
    example: [
      {
        id: 'msg_6f0c0a2b9d3e4c51a7b8c9d0e1f2a3b4',
        type: 'message',
        role: 'user',
        status: 'completed',
        content: [{ type: 'input_text', text: 'Say hello.' }],
      },
    ],
  })
  data: Record<string, unknown>[];
  @ApiProperty({ nullable: true, type: String, example: 'msg_6f0c0a2b9d3e4c51a7b8c9d0e1f2a3b4' }) first_id:
    string | null;
  @ApiProperty({ nullable: true, type: String, example: 'msg_6f0c0a2b9d3e4c51a7b8c9d0e1f2a3b4' }) last_id:
    string | null;
  @ApiProperty({ example: false }) has_more: boolean;
}
