import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  Allow,
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsDefined,
  IsInt,
  IsNotEmpty,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  Max,
  Min,
  ValidateBy,
} from 'class-validator';
import { PromptCacheRetention, PromptCacheRetentionValue } from './prompt-cache.dto';

/**
 * POST /v1/responses — the OpenAI Responses request, text only, on the chat pipeline. Scalars are
 * validated here; `input`, `tools`, `tool_choice` and `text` are unions validated by
 * responses-input.ts so that errors name the exact field (e.g. input[1].content[0].type).
 */
export class ResponseCreateRequestDto {
  @ApiProperty({ example: 'local', description: 'A chat model key from GET /v1/models' })
  @IsString()
  @IsNotEmpty()
  model: string;

  @ApiProperty({
    description:
      'A string (one user message) or an array of items: messages {role: user|assistant|system|developer, content: string | [{type: "input_text", text}]} (assistant content may use output_text parts), {type: "function_call", call_id, name, arguments} and {type: "function_call_output", call_id, output}',
    oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'object', additionalProperties: true } }],
    example: 'Say hello in one short sentence.',
  })
  @IsDefined()
  @Allow()
  input: unknown;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description: 'A system message placed before the input',
    example: 'Be brief.',
  })
  @IsOptional()
  @IsString()
  instructions?: string | null;
  @ApiPropertyOptional({ type: Number, nullable: true, example: 64, description: 'Upper bound of generated tokens' })
  @IsOptional()
  @IsInt()
  @Min(1)
  max_output_tokens?: number | null;
  @ApiPropertyOptional({ type: Number, nullable: true, example: 0.7 })
  @IsOptional()
  @IsNumber()
  @Min(0)
  @Max(2)
  temperature?: number | null;
  @ApiPropertyOptional({ type: Number, nullable: true, example: 1 }) @IsOptional() @IsNumber() @Min(0) @Max(1) top_p?:
    number | null;
  @ApiPropertyOptional({
    description:
      'Function tools, e.g. [{"type": "function", "name": "get_weather", "description": "Current weather for a city", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}] — on models with tool support (`local` has none, so the example is empty); and one {"type": "file_search", "vector_store_ids": ["vs_…"], "max_num_results"?: 1–50 (10), "ranking_options"?: {"score_threshold"}, "filters"?} on any model: the gateway searches the vector stores and gives the hits to the model',
    type: 'array',
    items: { type: 'object', additionalProperties: true },
    example: [],
  })
  @IsOptional()
  @IsArray()
  tools?: unknown[] | null;
  @ApiPropertyOptional({
    oneOf: [
      { type: 'string', enum: ['none', 'auto', 'required'] },
      { type: 'object', additionalProperties: true },
    ],
    description: '"none" | "auto" | "required" | {type: "function", name}',
    example: 'auto',
  })
  @IsOptional()
  @Allow()
  tool_choice?: unknown;
  @ApiPropertyOptional({ type: Boolean, nullable: true, example: true })
  @IsOptional()
  @IsBoolean()
  parallel_tool_calls?: boolean | null;
  @ApiPropertyOptional({
    description: '{format: {type: "text"} | {type: "json_object"} | {type: "json_schema", name, schema, strict?}}',
    type: 'object',
    additionalProperties: true,
    example: { format: { type: 'text' } },
  })
  @IsOptional()
  @IsObject()
  text?: Record<string, unknown> | null;
  @ApiPropertyOptional({
    type: Boolean,
    nullable: true,
    default: false,
    description: 'true: Server-Sent Events (response.created … response.completed)',
    example: false,
  })
  @IsOptional()
  @IsBoolean()
  stream?: boolean | null;
  @ApiPropertyOptional({ type: String, example: 'user-42' }) @IsOptional() @IsString() user?: string | null;
  @ApiPropertyOptional({ type: String, example: 'user-42' }) @IsOptional() @IsString() safety_identifier?:
    string | null;
  @ApiPropertyOptional({
    nullable: true,
    type: 'object',
    additionalProperties: { type: 'string' },
    description: 'Echoed back on the response: at most 16 string values',
    example: { ticket: 'T-1' },
  })
  @IsOptional()
  @IsObject()
  @ValidateBy({
    name: 'isStringMap',
    validator: {
      validate: (v: unknown) =>
        typeof v === 'object' &&
        v !== null &&
        Object.keys(v).length <= 16 &&
        Object.values(v).every((x) => typeof x === 'string' && x.length <= 512),
      defaultMessage: () => 'metadata must be an object of at most 16 string values (each at most 512 characters)',
    },
  })
  metadata?: Record<string, string> | null;

  // Accepted for SDK compatibility (the Vercel AI SDK and openai-node send some of them); not forwarded
  @ApiPropertyOptional({
    type: Boolean,
    nullable: true,
    description:
      'Default true: the response is kept for 30 days for GET /v1/responses/{id}, input_items and previous_response_id; false keeps nothing',
    example: false,
  })
  @IsOptional()
  @IsBoolean()
  store?: boolean | null;
  @ApiPropertyOptional({
    description:
      'A stored response of the team to continue: its conversation (input and output, not its instructions) comes before this input',
    example: null,
    nullable: true,
    type: String,
  })
  @IsOptional()
  @IsString()
  previous_response_id?: string | null;
  @ApiPropertyOptional({
    type: Boolean,
    nullable: true,
    description: 'Not supported: true is rejected with 400',
    example: false,
  })
  @IsOptional()
  @IsBoolean()
  background?: boolean | null;
  @ApiPropertyOptional({
    description: 'Not supported (conversations): a value is rejected with 400',
    nullable: true,
    example: null,
    oneOf: [{ type: 'string' }, { type: 'object', additionalProperties: true }],
  })
  @Allow()
  conversation?: unknown;
  @ApiPropertyOptional({
    description: 'Not supported (prompt templates): a value is rejected with 400',
    nullable: true,
    type: 'object',
    additionalProperties: true,
    example: null,
  })
  @Allow()
  prompt?: unknown;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description:
      '{effort: minimal | low | medium | high}: as reasoning_effort of chat completions (OpenAI reasoning models; Claude and Gemini thinking budgets); refused with 400 by other models. summary is not supported.',
    example: null,
    nullable: true,
  })
  @IsOptional()
  @IsObject()
  reasoning?: Record<string, unknown> | null;
  @ApiPropertyOptional({
    example: null,
    nullable: true,
    type: Number,
    description: '0–20: token log probabilities with this many alternatives (OpenAI, DeepSeek chat)',
  })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(20)
  top_logprobs?: number | null;
  @ApiPropertyOptional({
    nullable: true,
    type: 'array',
    items: { type: 'string' },
    description:
      '"file_search_call.results": the file_search_call item lists its results; other values are accepted and ignored',
    example: [],
  })
  @IsOptional()
  @IsArray()
  include?: string[] | null;
  @ApiPropertyOptional({ type: String, nullable: true, description: 'Accepted and ignored', example: 'disabled' })
  @IsOptional()
  @IsString()
  truncation?: string | null;
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description: 'As service_tier of chat completions (OpenAI models; "auto" everywhere)',
    example: 'auto',
  })
  @IsOptional()
  @IsString()
  service_tier?: string | null;
  @ApiPropertyOptional({ type: String, description: 'Accepted and ignored', example: 'docs-example' })
  @IsOptional()
  @IsString()
  prompt_cache_key?: string | null;
  @PromptCacheRetention()
  prompt_cache_retention?: PromptCacheRetentionValue | null;
  @ApiPropertyOptional({
    type: [String],
    description:
      "Extension: model keys tried in order when the model fails with a retryable error (after its retries) or is unavailable; replaces the catalog's `fallbacks`. The response's `model` and the `x-gateway-model` header name the model that served; the charge uses its prices.",
    example: ['local'],
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(5)
  @IsString({ each: true })
  @IsNotEmpty({ each: true })
  fallbacks?: string[];
}

// the response side (output items, the response object, stream events, input item pages)
export * from './responses-output.dto';
