import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  Allow,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsInt,
  IsNotEmpty,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  Max,
  Min,
} from 'class-validator';

/**
 * POST /v1/messages — the Anthropic Messages request. Scalar fields are validated here; the unions
 * (`messages` content blocks, `system`, `tools`, `tool_choice`, `thinking`) by messages-request.ts,
 * so that errors name the exact field (e.g. messages[2].content[0].source.media_type). Fields not
 * declared here still reach a Claude upstream: the service passes the body as the client sent it.
 */
export class MessagesRequestDto {
  @ApiProperty({
    example: 'local',
    description: 'A chat model key from GET /v1/models (e.g. claude-sonnet-4), or a MODEL_ALIASES name',
  })
  @IsString()
  @IsNotEmpty()
  model: string;

  @ApiProperty({ example: 1024, description: 'Maximum tokens to generate' })
  @IsInt()
  @Min(1)
  max_tokens: number;

  @ApiProperty({
    description:
      'Turns of role user / assistant; content as a string or blocks: text, image (base64 / url), document (PDF base64 / url, plain text), tool_use, tool_result, thinking, redacted_thinking (any block may carry cache_control)',
    example: [{ role: 'user', content: 'Hello, Claude' }],
    type: 'array',
    items: { type: 'object' },
  })
  @IsArray()
  @ArrayMinSize(1)
  messages: unknown[];

  @ApiPropertyOptional({
    description: 'System prompt: a string or text blocks (with cache_control)',
    oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'object' } }],
    example: 'You are terse.',
  })
  @IsOptional()
  @Allow()
  system?: unknown;

  @ApiPropertyOptional({ example: 1, minimum: 0, maximum: 1 })
  @IsOptional()
  @IsNumber()
  @Min(0)
  @Max(1)
  temperature?: number;

  @ApiPropertyOptional({ example: 0.9, minimum: 0, maximum: 1 })
  @IsOptional()
  @IsNumber()
  @Min(0)
  @Max(1)
  top_p?: number;

  @ApiPropertyOptional({ example: 40, description: 'Claude models only' })
  @IsOptional()
  @IsInt()
  @Min(0)
  top_k?: number;

  @ApiPropertyOptional({ example: ['\n\nHuman:'], type: [String] })
  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  stop_sequences?: string[];

  @ApiPropertyOptional({ example: false, description: 'Server-sent events in the Messages API event sequence' })
  @IsOptional()
  @IsBoolean()
  stream?: boolean;

  @ApiPropertyOptional({
    description:
      'Custom tools {name, description, input_schema}; server tools (web_search, …) are passed to Claude models only',
    type: 'array',
    items: { type: 'object' },
    example: [
      {
        name: 'get_weather',
        description: 'Current weather',
        input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      },
    ],
  })
  @IsOptional()
  @IsArray()
  tools?: unknown[];

  @ApiPropertyOptional({
    description: '{type: auto | any | none} or {type: tool, name}; disable_parallel_tool_use',
    example: { type: 'auto' },
  })
  @IsOptional()
  @IsObject()
  tool_choice?: Record<string, unknown>;

  @ApiPropertyOptional({
    description: '{type: enabled, budget_tokens (≥ 1024, < max_tokens)} or {type: disabled}',
    example: { type: 'enabled', budget_tokens: 2048 },
  })
  @IsOptional()
  @IsObject()
  thinking?: Record<string, unknown>;

  @ApiPropertyOptional({ description: 'metadata.user_id is recorded as the end user', example: { user_id: 'user-42' } })
  @IsOptional()
  @IsObject()
  metadata?: Record<string, unknown>;
}

/** POST /v1/messages/count_tokens: the Messages request without max_tokens. */
export class CountTokensRequestDto {
  @ApiProperty({ example: 'local', description: 'A chat model key (e.g. claude-sonnet-4) or a MODEL_ALIASES name' })
  @IsString()
  @IsNotEmpty()
  model: string;

  @ApiProperty({ example: [{ role: 'user', content: 'Hello, Claude' }], type: 'array', items: { type: 'object' } })
  @IsArray()
  @ArrayMinSize(1)
  messages: unknown[];

  @ApiPropertyOptional({ oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'object' } }] })
  @IsOptional()
  @Allow()
  system?: unknown;

  @ApiPropertyOptional({ type: 'array', items: { type: 'object' } })
  @IsOptional()
  @IsArray()
  tools?: unknown[];

  @ApiPropertyOptional({ example: { type: 'auto' } })
  @IsOptional()
  @IsObject()
  tool_choice?: Record<string, unknown>;

  @ApiPropertyOptional({ example: { type: 'enabled', budget_tokens: 2048 } })
  @IsOptional()
  @IsObject()
  thinking?: Record<string, unknown>;
}

export class CountTokensResponseDto {
  @ApiProperty({ example: 14, description: 'Input tokens of the request as the model counts them' })
  input_tokens: number;
}

export class MessagesCacheCreationDto {
  @ApiProperty({ example: 0 }) ephemeral_5m_input_tokens: number;
  @ApiProperty({ example: 0 }) ephemeral_1h_input_tokens: number;
}

export class MessagesUsageDto {
  @ApiProperty({ example: 12, description: 'Input tokens not read from or written to the cache' })
  input_tokens: number;
  @ApiProperty({ example: 30 }) output_tokens: number;
  @ApiProperty({ example: 0 }) cache_creation_input_tokens: number;
  @ApiProperty({ example: 0 }) cache_read_input_tokens: number;
  @ApiPropertyOptional({ type: MessagesCacheCreationDto }) cache_creation?: MessagesCacheCreationDto;
  @ApiPropertyOptional({ type: String, example: 'standard', description: 'As the Anthropic upstream reports it' })
  service_tier?: string;
}

export class MessagesCostDto {
  @ApiProperty({ example: 0.0036 }) input_cost_rub: number;
  @ApiProperty({ example: 0.045 }) output_cost_rub: number;
  @ApiProperty({ nullable: true, type: Number, example: null }) image_cost_rub: number | null;
  @ApiProperty({ nullable: true, type: Number, example: 0, description: 'Cache reads and writes (5 m and 1 h)' })
  cache_cost_rub: number | null;
  @ApiProperty({ example: 0.0486, description: 'Charged to the team balance' }) total_cost_rub: number;
  @ApiProperty({ example: 'RUB' }) currency: 'RUB';
}

export class MessageResponseDto {
  @ApiProperty({ example: 'msg_013Zva2CMHLNnXjNJJKqJ2EF' }) id: string;
  @ApiProperty({ example: 'message' }) type: 'message';
  @ApiProperty({ example: 'assistant' }) role: 'assistant';
  @ApiProperty({ example: 'claude-sonnet-4-20250514', description: 'The model that answered' }) model: string;
  @ApiProperty({
    type: 'array',
    items: { type: 'object' },
    description: 'Content blocks: text, thinking (with signature), redacted_thinking, tool_use, …',
    example: [{ type: 'text', text: 'Hi! How can I help?' }],
  })
  content: unknown[];
  @ApiProperty({
    nullable: true,
    type: String,
    enum: ['end_turn', 'max_tokens', 'stop_sequence', 'tool_use', 'pause_turn', 'refusal'],
    example: 'end_turn',
  })
  stop_reason: string | null;
  @ApiProperty({ nullable: true, type: String, example: null }) stop_sequence: string | null;
  @ApiProperty({ type: MessagesUsageDto }) usage: MessagesUsageDto;
  @ApiProperty({
    type: MessagesCostDto,
    description: 'What the call cost (RUB), also in the x-gateway-cost-rub header',
  })
  cost: MessagesCostDto;
}

export class MessagesErrorDetailDto {
  @ApiProperty({
    example: 'invalid_request_error',
    enum: [
      'invalid_request_error',
      'authentication_error',
      'billing_error',
      'permission_error',
      'not_found_error',
      'request_too_large',
      'rate_limit_error',
      'api_error',
      'timeout_error',
      'overloaded_error',
    ],
  })
  type: string;
  @ApiProperty({ example: 'max_tokens: must not be less than 1' }) message: string;
}

export class MessagesErrorDto {
  @ApiProperty({ example: 'error' }) type: 'error';
  @ApiProperty({ type: MessagesErrorDetailDto }) error: MessagesErrorDetailDto;
  @ApiPropertyOptional({ example: 'req_0123' }) request_id?: string;
}
