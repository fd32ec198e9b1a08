import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsDateString,
  IsIn,
  IsInt,
  IsNumber,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  Max,
  MaxLength,
  Min,
} from 'class-validator';

export const STATUS_FILTERS = ['ok', 'error', '4xx', '5xx'] as const;
export type StatusFilter = (typeof STATUS_FILTERS)[number];

export class RequestLogQueryDto {
  @ApiPropertyOptional({ description: 'From this instant (ISO 8601, inclusive)', example: '2026-11-01T00:00:00Z' })
  @IsOptional()
  @IsDateString()
  from?: string;

  @ApiPropertyOptional({ description: 'Until this instant (ISO 8601, exclusive)', example: '2026-12-01T00:00:00Z' })
  @IsOptional()
  @IsDateString()
  to?: string;

  @ApiPropertyOptional({ description: 'Only calls made with this API key' })
  @IsOptional()
  @IsUUID()
  api_key_id?: string;

  @ApiPropertyOptional({
    description: 'Only calls of this end user (`user`, `user_id`, `metadata.user_id`) or signed-in user id',
  })
  @IsOptional()
  @IsString()
  @MaxLength(256)
  user?: string;

  @ApiPropertyOptional({
    description: 'Only calls that requested or were served by this model',
    example: 'gpt-4o-mini',
  })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  model?: string;

  @ApiPropertyOptional({ description: 'Only this endpoint (route template)', example: '/v1/chat/completions' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  endpoint?: string;

  @ApiPropertyOptional({ enum: ['model', 'mcp_tool'], description: 'Only model calls, or only MCP tool calls' })
  @IsOptional()
  @IsIn(['model', 'mcp_tool'])
  kind?: 'model' | 'mcp_tool';

  @ApiPropertyOptional({
    enum: STATUS_FILTERS,
    description: 'ok: HTTP status below 400; error: 400 and above; 4xx; 5xx',
  })
  @IsOptional()
  @IsIn(STATUS_FILTERS)
  status?: StatusFilter;

  @ApiPropertyOptional({ description: 'Only calls with this project' })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  project_id?: string;

  @ApiPropertyOptional({ description: 'Only calls that cost at least this many RUB', example: 0.5 })
  @IsOptional()
  @Type(() => Number)
  @IsNumber({ maxDecimalPlaces: 6, allowNaN: false, allowInfinity: false })
  @Min(0)
  min_cost_rub?: number;

  @ApiPropertyOptional({
    description:
      'Operators: only this team (absent: every team). Signed-in members: the team to read (or the x-team-id header). Ignored with an API key.',
  })
  @IsOptional()
  @IsUUID()
  team_id?: string;

  @ApiPropertyOptional({ description: 'Cursor: the `next_cursor` of the previous page' })
  @IsOptional()
  @IsString()
  @Matches(/^\d{1,16}\.\d{1,19}$/, { message: 'cursor must be a next_cursor value' })
  cursor?: string;

  @ApiPropertyOptional({ description: 'Records per page (1–200)', default: 50 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(200)
  limit?: number;
}

export class RequestLogExportQueryDto extends RequestLogQueryDto {
  @ApiProperty({ enum: ['csv'], description: 'The export format', example: 'csv' })
  @IsIn(['csv'])
  format: 'csv';

  @ApiPropertyOptional({
    description: 'Records in the file (1–10000); the next file starts at the `x-next-cursor` header',
    default: 1000,
  })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(10_000)
  declare limit?: number;
}

export class RequestLogUsageDto {
  @ApiProperty({ example: 120 }) input_tokens: number;
  @ApiProperty({ example: 48 }) output_tokens: number;
  @ApiProperty({ description: 'Of input_tokens, read from the provider prompt cache', example: 0 })
  cache_read_tokens: number;
  @ApiProperty({ description: 'Of input_tokens, written to the provider prompt cache', example: 0 })
  cache_write_tokens: number;
  @ApiProperty({ description: 'Of output_tokens, spent on reasoning', example: 0 }) reasoning_tokens: number;
}

export class DataProtectionDto {
  @ApiProperty({ enum: ['any', 'ru_only'], example: 'ru_only' }) residency: string;
  @ApiProperty({ enum: ['off', 'mask', 'block'], example: 'mask' }) pii: string;
  @ApiProperty({ enum: ['foreign_only', 'all_providers'], example: 'foreign_only' }) pii_scope: string;
  @ApiProperty({
    enum: ['masked', 'blocked', 'none'],
    description: 'masked: placeholders went upstream; blocked: refused with pii_detected; none: nothing done',
    example: 'masked',
  })
  action: 'masked' | 'blocked' | 'none';
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'integer' },
    description: 'Personal data found, by entity type (counts only, never values)',
    example: { email: 1, phone: 2 },
  })
  entities: Record<string, number>;
}

export class RequestLogRecordDto {
  @ApiProperty({ description: "The response's x-request-id", example: 'req_6f1c2a9e0b7d4e3f' }) id: string;
  @ApiProperty({ description: 'When the call arrived', example: '2026-11-26T12:00:00.000Z' }) created_at: string;
  @ApiProperty({ type: String, nullable: true, example: '1b4e28ba-2fa1-11d2-883f-0016d3cca427' })
  team_id: string | null;
  @ApiProperty({ description: 'Route template', example: '/v1/chat/completions' }) endpoint: string;
  @ApiProperty({ type: String, nullable: true, description: 'Model requested', example: 'gpt-4o-mini' })
  model: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Catalog model that answered', example: 'gpt-4o-mini' })
  served_model: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'openai' }) provider: string | null;
  @ApiProperty({ description: 'HTTP status', example: 200 }) status: number;
  @ApiProperty({ type: String, nullable: true, example: null }) error_code: string | null;
  @ApiProperty({ example: false }) stream: boolean;
  @ApiProperty({ type: RequestLogUsageDto }) usage: RequestLogUsageDto;
  @ApiProperty({ description: 'RUB charged (= the ledger entry)', example: 0.0123 }) cost_rub: number;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'USD-priced models: the CBR rate (RUB per USD) the charge used; null otherwise',
    example: null,
  })
  fx_rate: number | null;
  @ApiProperty({ type: String, nullable: true, description: 'The date of that CBR rate (YYYY-MM-DD)', example: null })
  fx_date: string | null;
  @ApiProperty({ description: 'Total time in the gateway', example: 812 }) latency_ms: number;
  @ApiProperty({ type: Number, nullable: true, description: 'Time to the first streamed byte', example: null })
  ttft_ms: number | null;
  @ApiProperty({ description: 'Upstream attempts (retries and fallbacks included)', example: 1 }) attempts: number;
  @ApiProperty({
    type: [String],
    nullable: true,
    description: 'Catalog models tried in order when the call fell back (null: no fallback)',
    example: null,
  })
  fallback_path: string[] | null;
  @ApiProperty({ type: String, nullable: true, example: '0f8fad5b-d9cb-469f-a165-70867728950e' })
  api_key_id: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'sk-AbCdEfGh' }) key_prefix: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Signed-in user of a console call', example: null })
  session_user_id: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'End user named by the call (user, user_id, metadata.user_id)',
    example: 'customer-42',
  })
  user: string | null;
  @ApiProperty({ type: String, nullable: true, example: null }) project_id: string | null;
  @ApiProperty({ type: String, nullable: true, example: null }) knowledge_base_id: string | null;
  @ApiProperty({ type: String, nullable: true, example: '203.0.113.7' }) client_ip: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'OpenAI/Python 1.54.0' }) user_agent: string | null;
  @ApiProperty({
    type: () => DataProtectionDto,
    nullable: true,
    description: "The team's or key's data policy applied to the call (null: none set)",
  })
  data_protection: DataProtectionDto | null;
  @ApiProperty({
    enum: ['model', 'mcp_tool'],
    description: 'A model call, or a tool call through the MCP gateway',
    example: 'model',
  })
  kind: 'model' | 'mcp_tool';
  @ApiProperty({ type: String, nullable: true, description: 'mcp_tool: the registered server', example: null })
  mcp_server: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'mcp_tool: the tool called', example: null })
  mcp_tool: string | null;
  @ApiProperty({ type: Number, nullable: true, description: "mcp_tool: bytes of the tool's result", example: null })
  bytes: number | null;
}

export class RequestLogDetailDto extends RequestLogRecordDto {
  @ApiPropertyOptional({
    type: String,
    description: 'The request body as stored (JSON text, secrets redacted); only when the team stores bodies',
  })
  request_body?: string;
  @ApiPropertyOptional({
    type: String,
    description: 'The response body as stored (JSON or SSE text, secrets redacted); only when stored',
  })
  response_body?: string;
  @ApiPropertyOptional({ description: 'A stored body was cut at REQUEST_LOG_BODY_MAX_KB', example: false })
  body_truncated?: boolean;
  @ApiProperty({
    type: String,
    nullable: true,
    description: "The API key's name (null: none given, or no key)",
    example: 'backend-prod',
  })
  key_name: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The e-mail of the signed-in user of a console call',
    example: 'ada@example.com',
  })
  session_user_email: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The e-mail of the user who created the API key (null: the admin API, the CLI or a bootstrap)',
    example: 'ada@example.com',
  })
  key_created_by_email: string | null;
  @ApiProperty({ type: String, nullable: true, description: "The project's name", example: 'Support bot' })
  project_name: string | null;
}

export class RequestLogListDto {
  @ApiProperty({ example: 'list' }) object: 'list';
  @ApiProperty({ type: [RequestLogRecordDto] }) data: RequestLogRecordDto[];
  @ApiProperty({ example: false }) has_more: boolean;
  @ApiProperty({ type: String, nullable: true, description: 'Pass as `cursor` for the next page', example: null })
  next_cursor: string | null;
}
