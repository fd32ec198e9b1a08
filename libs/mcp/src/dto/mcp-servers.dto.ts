import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsNumber, IsObject, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';

export const MCP_TRANSPORTS = ['streamable_http', 'sse'] as const;
/** [a-z0-9_-], never `__` (it separates server and tool in `<server>__<tool>`) */
export const SERVER_NAME = /^(?!.*__)[a-z0-9_-]{1,64}$/;

const HEADERS_SCHEMA = {
  type: 'object',
  additionalProperties: { type: 'string' },
  description:
    'Headers sent to the server with every request (e.g. Authorization), stored encrypted and never returned; ' +
    'on update, the given object replaces the stored set ({} removes them all)',
  example: { Authorization: 'Bearer ghp_example' },
} as const;

export class CreateMcpServerDto {
  @ApiProperty({ description: 'Unique in the team: [a-z0-9_-], no "__"', example: 'github' })
  @IsString()
  @Matches(SERVER_NAME, { message: 'name must be 1–64 of [a-z0-9_-] without "__"' })
  name: string;

  @ApiProperty({ description: 'The server’s MCP endpoint (http or https)', example: 'https://mcp.example.com/mcp' })
  @IsString()
  @MaxLength(2048)
  url: string;

  @ApiPropertyOptional({ enum: MCP_TRANSPORTS, default: 'streamable_http', example: 'streamable_http' })
  @IsOptional()
  @IsIn(MCP_TRANSPORTS as unknown as string[])
  transport?: (typeof MCP_TRANSPORTS)[number];

  @ApiPropertyOptional(HEADERS_SCHEMA)
  @IsOptional()
  @IsObject()
  headers?: Record<string, string>;

  @ApiPropertyOptional({ example: 'Issues and pull requests of our repositories' })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  description?: string;

  @ApiPropertyOptional({ description: 'RUB charged per tool call (0: free)', default: 0, example: 0.5 })
  @IsOptional()
  @IsNumber({ maxDecimalPlaces: 6, allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(1_000_000)
  price_per_call_rub?: number;
}

const UPDATE_HEADERS_SCHEMA = {
  ...HEADERS_SCHEMA,
  additionalProperties: { type: 'string', nullable: true },
  description:
    HEADERS_SCHEMA.description +
    '; a null value keeps the stored value of that header (so one header can change without sending the others)',
  example: { Authorization: null, 'X-Org': 'acme' },
} as const;

export class UpdateMcpServerDto {
  @ApiPropertyOptional({ example: 'github' })
  @IsOptional()
  @IsString()
  @Matches(SERVER_NAME, { message: 'name must be 1–64 of [a-z0-9_-] without "__"' })
  name?: string;

  @ApiPropertyOptional({ example: 'https://mcp.example.com/mcp' })
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  url?: string;

  @ApiPropertyOptional({ enum: MCP_TRANSPORTS })
  @IsOptional()
  @IsIn(MCP_TRANSPORTS as unknown as string[])
  transport?: (typeof MCP_TRANSPORTS)[number];

  @ApiPropertyOptional(UPDATE_HEADERS_SCHEMA)
  @IsOptional()
  @IsObject()
  headers?: Record<string, string | null>;

  @ApiPropertyOptional({ type: String, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  description?: string | null;

  @ApiPropertyOptional({ example: 0 })
  @IsOptional()
  @IsNumber({ maxDecimalPlaces: 6, allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(1_000_000)
  price_per_call_rub?: number;
}

export class McpServerDto {
  @ApiProperty({ example: 'mcp_4f0c2a9e1b7d4c3a8e6f5d2c1b0a9e8f' }) id: string;
  @ApiProperty({ example: 'github' }) name: string;
  @ApiProperty({ example: 'https://mcp.example.com/mcp' }) url: string;
  @ApiProperty({ enum: MCP_TRANSPORTS, example: 'streamable_http' }) transport: string;
  @ApiProperty({
    enum: ['unknown', 'ok', 'error'],
    description: 'ok: its tools were read at the last refresh; error: it could not be reached (status_error says why)',
    example: 'ok',
  })
  status: string;
  @ApiProperty({ type: String, nullable: true, example: null }) status_error: string | null;
  @ApiProperty({ type: String, nullable: true, example: null }) description: string | null;
  @ApiProperty({ example: 0 }) price_per_call_rub: number;
  @ApiProperty({
    type: [String],
    description: 'Names of the stored headers (values are never returned)',
    example: ['Authorization'],
  })
  header_names: string[];
  @ApiProperty({ description: 'Tools read at the last refresh', example: 12 }) tool_count: number;
  @ApiProperty({ type: String, nullable: true, example: '2026-11-21T10:00:00.000Z' }) tools_refreshed_at: string | null;
  @ApiProperty({ example: '2026-11-21T10:00:00.000Z' }) created_at: string;
  @ApiProperty({ example: '2026-11-21T10:00:00.000Z' }) updated_at: string;
}

export class McpServerListDto {
  @ApiProperty({ example: 'list' }) object: 'list';
  @ApiProperty({ type: [McpServerDto] }) data: McpServerDto[];
}

export class McpToolDto {
  @ApiProperty({ example: 'search_issues' }) name: string;
  @ApiProperty({ description: 'As the gateway’s /mcp endpoint lists it', example: 'github__search_issues' })
  gateway_name: string;
  @ApiProperty({ type: String, nullable: true, example: 'Search issues' }) description: string | null;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'JSON Schema of its arguments',
    example: { type: 'object' },
  })
  input_schema: Record<string, unknown>;
}

export class McpToolListDto {
  @ApiProperty({ example: 'list' }) object: 'list';
  @ApiProperty({ type: [McpToolDto] }) data: McpToolDto[];
}

export class CallMcpToolDto {
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: "The tool's arguments, as its input schema describes them (absent: {})",
    example: { text: 'hello' },
  })
  @IsOptional()
  @IsObject()
  arguments?: Record<string, unknown>;
}

export class McpToolCallResultDto {
  @ApiProperty({
    type: 'array',
    items: { type: 'object', additionalProperties: true },
    description: 'The result as the server sent it: text, image, audio, resource and resource_link parts',
    example: [{ type: 'text', text: 'echo: hello' }],
  })
  content: Record<string, unknown>[];
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    description: "The tool's structured result (structuredContent), when it sent one",
    example: { echoed: 'hello' },
  })
  structured_content: Record<string, unknown> | null;
  @ApiProperty({ description: 'The tool reported an error (the call is not charged)', example: false })
  is_error: boolean;
  @ApiProperty({ description: 'How long the call took, in milliseconds', example: 42 })
  duration_ms: number;
  @ApiProperty({ description: 'RUB charged for the call (0: free, failed or unpriced)', example: 0.5 })
  cost_rub: number;
}
