import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Allow, ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsInt, IsNotEmpty, IsNumber, IsObject, IsOptional, IsString, Max, Min } from 'class-validator';

/**
 * POST /v1/chat/completions — the OpenAI chat-completions request. Scalar fields are validated
 * here; `messages`, `tools`, `tool_choice`, `response_format` and `stop` are unions validated by
 * completion-params.ts so that errors name the exact field (e.g. messages[2].content[0].image_url.url).
 */
export class ChatCompletionRequestDto {
  @ApiProperty({ example: 'gpt-4o-mini' }) @IsString() @IsNotEmpty() model: string;

  @ApiProperty({
    description: 'OpenAI messages: roles system, developer, user, assistant (with tool_calls), tool; content as a string or parts (text, image_url with http(s) or data: URL)',
    example: [{ role: 'user', content: 'Hello!' }],
    type: 'array',
    items: { type: 'object' },
  })
  @IsArray() @ArrayMinSize(1)
  messages: unknown[];

  @ApiPropertyOptional({ example: 256 }) @IsOptional() @IsInt() @Min(1) max_tokens?: number;
  @ApiPropertyOptional({ example: 256 }) @IsOptional() @IsInt() @Min(1) max_completion_tokens?: number;
  @ApiPropertyOptional({ example: 0.7 }) @IsOptional() @IsNumber() @Min(0) @Max(2) temperature?: number;
  @ApiPropertyOptional({ example: 1 }) @IsOptional() @IsNumber() @Min(0) @Max(1) top_p?: number;
  @ApiPropertyOptional({ description: 'string or up to 4 strings', oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] }) @IsOptional() @Allow() stop?: unknown;
  @ApiPropertyOptional({ example: 42 }) @IsOptional() @IsInt() seed?: number;
  @ApiPropertyOptional({ example: 'user-42' }) @IsOptional() @IsString() user?: string;
  @ApiPropertyOptional({ description: 'Choices to generate (n > 1 only on models that support it)', example: 1 }) @IsOptional() @IsInt() @Min(1) @Max(8) n?: number;
  @ApiPropertyOptional({ type: 'array', items: { type: 'object' }, description: 'Function tools' }) @IsOptional() @IsArray() tools?: unknown[];
  @ApiPropertyOptional({ description: '"none" | "auto" | "required" | {type:"function",function:{name}}' }) @IsOptional() @Allow() tool_choice?: unknown;
  @ApiPropertyOptional() @IsOptional() @IsBoolean() parallel_tool_calls?: boolean;
  @ApiPropertyOptional({ description: '{type:"text"} | {type:"json_object"} | {type:"json_schema", json_schema:{name, schema, strict}}', type: 'object', additionalProperties: true }) @IsOptional() @IsObject() response_format?: unknown;
  @ApiPropertyOptional({ default: false }) @IsOptional() @IsBoolean() stream?: boolean;
  @ApiPropertyOptional({
    type: [String],
    description:
      "Extension: model keys tried in order when the model fails with a retryable error (after its retries) or is unavailable; replaces the catalog's `fallbacks`. The answer's `model` and the `x-gateway-model` header name the model that served; the charge uses its prices.",
    example: ['local'],
  })
  @IsOptional() @IsArray() @ArrayMaxSize(5) @IsString({ each: true }) @IsNotEmpty({ each: true })
  fallbacks?: string[];
  @ApiPropertyOptional({ description: '{include_usage: true} adds a final chunk with usage (and cost)', type: 'object', additionalProperties: true }) @IsOptional() @IsObject() stream_options?: { include_usage?: unknown };

  // Accepted for SDK compatibility and not forwarded (documented in the README)
  @ApiPropertyOptional() @IsOptional() @IsNumber() @Min(-2) @Max(2) presence_penalty?: number;
  @ApiPropertyOptional() @IsOptional() @IsNumber() @Min(-2) @Max(2) frequency_penalty?: number;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true }) @IsOptional() @IsObject() logit_bias?: Record<string, number>;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true }) @IsOptional() @IsObject() metadata?: Record<string, string>;
  @ApiPropertyOptional() @IsOptional() @IsBoolean() store?: boolean;
  @ApiPropertyOptional() @IsOptional() @IsString() reasoning_effort?: string;
  @ApiPropertyOptional({ description: 'Not supported: true is rejected with 400' }) @IsOptional() @IsBoolean() logprobs?: boolean;
}
