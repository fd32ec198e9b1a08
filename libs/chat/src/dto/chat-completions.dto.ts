import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { CONTEXT_MODES, RequestedMode } from '../context/context-plan';
import { PromptCacheRetention, PromptCacheRetentionValue } from './prompt-cache.dto';
import {
  Allow,
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
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
 * POST /v1/chat/completions — the OpenAI chat-completions request. Scalar fields are validated
 * here; `messages`, `tools`, `tool_choice`, `response_format` and `stop` are unions validated by
 * completion-params.ts so that errors name the exact field (e.g. messages[2].content[0].image_url.url).
 */
export class ChatCompletionRequestDto {
  @ApiProperty({ example: 'local', description: 'A chat model key from GET /v1/models' })
  @IsString()
  @IsNotEmpty()
  model: string;

  @ApiProperty({
    description:
      'OpenAI messages: roles system, developer, user, assistant (with tool_calls), tool; content as a string or parts (text, image_url with http(s) or data: URL)',
    example: [
      { role: 'system', content: 'Paris is the capital of France.' },
      { role: 'user', content: 'What is the capital of France?' },
    ],
    type: 'array',
    items: { type: 'object' },
  })
  @IsArray()
  @ArrayMinSize(1)
  messages: unknown[];

  @ApiPropertyOptional({ nullable: true, example: 256 }) @IsOptional() @IsInt() @Min(1) max_tokens?: number;
  @ApiPropertyOptional({ nullable: true, example: 256 }) @IsOptional() @IsInt() @Min(1) max_completion_tokens?: number;
  @ApiPropertyOptional({ nullable: true, example: 0.7 }) @IsOptional() @IsNumber() @Min(0) @Max(2) temperature?: number;
  @ApiPropertyOptional({ nullable: true, example: 1 }) @IsOptional() @IsNumber() @Min(0) @Max(1) top_p?: number;
  @ApiPropertyOptional({
    nullable: true,
    description: 'string or up to 4 strings',
    oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }],
    example: ['\n\n\n'],
  })
  @IsOptional()
  @Allow()
  stop?: unknown;
  @ApiPropertyOptional({ nullable: true, example: 42 }) @IsOptional() @IsInt() seed?: number;
  @ApiPropertyOptional({ example: 'user-42' }) @IsOptional() @IsString() user?: string;
  @ApiPropertyOptional({
    type: Number,
    nullable: true,
    description: 'Choices to generate (n > 1 only on models that support it)',
    example: 1,
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(8)
  n?: number;
  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'object', additionalProperties: true },
    description:
      'Function tools (models with supports_tools; `local` has none, hence the empty example), e.g. [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}]',
    example: [],
  })
  @IsOptional()
  @IsArray()
  tools?: unknown[];
  @ApiPropertyOptional({
    oneOf: [
      { type: 'string', enum: ['none', 'auto', 'required'] },
      { type: 'object', additionalProperties: true },
    ],
    description: '"none" | "auto" | "required" | {type:"function",function:{name}} (only with tools)',
    example: 'auto',
  })
  @IsOptional()
  @Allow()
  tool_choice?: unknown;
  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'object', additionalProperties: true },
    description:
      'Deprecated form of tools: [{name, description?, parameters?}]; the answer then carries message.function_call (finish_reason "function_call"). Not with tools / tool_choice.',
    nullable: true,
    example: null,
  })
  @IsOptional()
  @IsArray()
  functions?: unknown[] | null;
  @ApiPropertyOptional({
    description: 'Deprecated form of tool_choice (with functions): "none" | "auto" | {name}',
    nullable: true,
    example: null,
  })
  @IsOptional()
  @Allow()
  function_call?: unknown;
  @ApiPropertyOptional({ example: true, description: 'Only with tools' })
  @IsOptional()
  @IsBoolean()
  parallel_tool_calls?: boolean;
  @ApiPropertyOptional({
    description: '{type:"text"} | {type:"json_object"} | {type:"json_schema", json_schema:{name, schema, strict}}',
    type: 'object',
    additionalProperties: true,
    example: { type: 'text' },
  })
  @IsOptional()
  @IsObject()
  response_format?: unknown;
  @ApiPropertyOptional({ nullable: true, default: false, example: false }) @IsOptional() @IsBoolean() stream?: boolean;
  @ApiPropertyOptional({
    description: '{include_usage: true} adds a final chunk with usage (and cost); only with stream: true',
    type: 'object',
    additionalProperties: true,
    nullable: true,
    example: null,
  })
  @IsOptional()
  @IsObject()
  stream_options?: { include_usage?: unknown } | null;

  // Gateway extensions (the OpenAI SDKs send unknown body fields unchanged: extra_body / spread)
  @ApiPropertyOptional({
    type: [String],
    description:
      'Extension, as on /api/v1/chat: image and PDF URLs (http(s), data:image/… or data:application/pdf); images join the last user message (models with supports_images), PDF text joins the context; at most 20 images and 10 PDFs, each ≤ 10 MB; a URL that cannot be fetched is a 400 naming it',
    example: [],
  })
  // no array-size cap here: the service answers 413 beyond 20 images / 10 PDFs (the body limit bounds the array)
  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  file_urls?: string[];
  @ApiPropertyOptional({
    type: [String],
    description:
      "Extension: model keys tried in order when the model fails with a retryable error (after its retries) or is unavailable; replaces the catalog's `fallbacks`. The answer's `model` and the `x-gateway-model` header name the model that served; the charge uses its prices.",
    example: ['local'],
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(5)
  @IsString({ each: true })
  @IsNotEmpty({ each: true })
  fallbacks?: string[];
  // (context extensions: examples are null: an id only exists once created; null is the same as absent)
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: null,
    description:
      'Extension: project (prj_…) whose materials are added to the context; see docs/api.md "Project context in chat"',
  })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  project_id?: string | null;
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: null,
    description: 'Extension: knowledge base (vector store id, vs_…) searched by RAG',
  })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  knowledge_base_id?: string | null;
  @ApiPropertyOptional({
    enum: CONTEXT_MODES,
    nullable: true,
    example: null,
    description: "Extension: context mode for this request (default: the project's mode)",
  })
  @IsOptional()
  @IsIn(CONTEXT_MODES as string[])
  mode?: RequestedMode | null;

  // Controls: forwarded to models that honour them, translated where an equivalent exists, else
  // refused with 400 (neutral values always pass); see docs/openai-compatibility.md
  @ApiPropertyOptional({
    type: Number,
    nullable: true,
    example: 0,
    description: 'OpenAI, DeepSeek chat, Gemini; 0 everywhere',
  })
  @IsOptional()
  @IsNumber()
  @Min(-2)
  @Max(2)
  presence_penalty?: number;
  @ApiPropertyOptional({
    type: Number,
    nullable: true,
    example: 0,
    description: 'OpenAI, DeepSeek chat, Gemini; 0 everywhere',
  })
  @IsOptional()
  @IsNumber()
  @Min(-2)
  @Max(2)
  frequency_penalty?: number;
  @ApiPropertyOptional({
    nullable: true,
    type: 'object',
    additionalProperties: { type: 'number' },
    example: {},
    description: 'Token id → bias (-100…100); OpenAI models',
  })
  @IsOptional()
  @IsObject()
  logit_bias?: Record<string, number>;
  @ApiPropertyOptional({
    nullable: true,
    type: 'object',
    additionalProperties: { type: 'string' },
    example: { ticket: 'T-1' },
  })
  @IsOptional()
  @IsObject()
  metadata?: Record<string, string>;
  @ApiPropertyOptional({ nullable: true, example: false }) @IsOptional() @IsBoolean() store?: boolean;
  @ApiPropertyOptional({
    enum: ['minimal', 'low', 'medium', 'high'],
    nullable: true,
    example: null,
    description:
      'OpenAI reasoning models; Claude: extended thinking with a budget (1024 / 2048 / 8192 / 24576 tokens); Gemini: thinkingConfig budget (128 / 1024 / 8192 / 24576)',
  })
  @IsOptional()
  @IsIn(['minimal', 'low', 'medium', 'high'])
  reasoning_effort?: 'minimal' | 'low' | 'medium' | 'high' | null;
  @ApiPropertyOptional({
    type: Boolean,
    nullable: true,
    example: false,
    description: 'Token log probabilities (OpenAI, DeepSeek chat)',
  })
  @IsOptional()
  @IsBoolean()
  logprobs?: boolean;
  @ApiPropertyOptional({
    type: Number,
    nullable: true,
    example: null,
    description: '0–20 alternatives per token; with logprobs: true',
  })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(20)
  top_logprobs?: number | null;
  @ApiPropertyOptional({
    enum: ['auto', 'default', 'flex', 'scale', 'priority'],
    example: 'auto',
    description: 'OpenAI models ("auto" everywhere)',
  })
  @IsOptional()
  @IsIn(['auto', 'default', 'flex', 'scale', 'priority'])
  service_tier?: string;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    example: null,
    description: 'Predicted output {type: "content", content} (OpenAI gpt-4o / gpt-4.1 models)',
  })
  @IsOptional()
  @IsObject()
  prediction?: Record<string, unknown> | null;
  @ApiPropertyOptional({
    enum: ['low', 'medium', 'high'],
    nullable: true,
    example: null,
    description: 'Answer length (OpenAI gpt-5 models)',
  })
  @IsOptional()
  @IsIn(['low', 'medium', 'high'])
  verbosity?: 'low' | 'medium' | 'high' | null;
  @ApiPropertyOptional({
    type: String,
    example: 'user-42',
    description: 'Stable end-user identifier: sent upstream as user (user wins when both are given)',
  })
  @IsOptional()
  @IsString()
  safety_identifier?: string;
  @ApiPropertyOptional({
    type: String,
    example: 'docs-example',
    description: 'A prompt-caching hint: accepted; it changes nothing in the answer or the price',
  })
  @IsOptional()
  @IsString()
  prompt_cache_key?: string;
  @PromptCacheRetention()
  prompt_cache_retention?: PromptCacheRetentionValue | null;
  @ApiPropertyOptional({
    type: [String],
    nullable: true,
    example: ['text'],
    description: 'Output modalities: only ["text"]; audio output is a 400',
  })
  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  modalities?: string[] | null;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    example: null,
    description: 'Audio output parameters: not supported (a 400 unless null)',
  })
  @IsOptional()
  @IsObject()
  audio?: Record<string, unknown> | null;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    example: null,
    description: 'Web search: not supported (a 400 unless null)',
  })
  @IsOptional()
  @IsObject()
  web_search_options?: Record<string, unknown> | null;
}
