import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { CONTEXT_MODES, RequestedMode } from '../context/context-plan';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsNumber,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';

export class ChatTurnDto {
  @ApiProperty({
    enum: ['user', 'assistant'],
    description: 'Only user and assistant turns; put instructions in system_prompt',
    example: 'user',
  })
  @IsIn(['user', 'assistant'], { message: 'role must be "user" or "assistant"' })
  role: 'user' | 'assistant';

  @ApiProperty({ example: 'What is RAG?' })
  @IsString()
  content: string;
}

/** POST /api/v1/chat: the REST chat request, plus the optional extensions documented in docs/api.md (defaults: docs/decisions/chat-rest-defaults.md). */
export class ChatRequestDto {
  @ApiProperty({
    description: "The user's text (sent as the last user turn)",
    example: 'Summarise the attached report in three bullet points.',
  })
  @IsString()
  @IsNotEmpty()
  prompt: string;

  @ApiProperty({ description: 'Model key (GET /api/v1/models)', example: 'gpt-4o-mini' })
  @IsString()
  @IsNotEmpty()
  model: string;

  @ApiProperty({ description: "Caller's user identifier (forwarded as the provider's `user`)", example: 'user-42' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(256)
  user_id: string;

  @ApiPropertyOptional({
    description: 'Role or context instruction (sent first, as the system turn)',
    example: 'You are a concise analyst.',
  })
  @IsOptional()
  @IsString()
  system_prompt?: string;

  @ApiPropertyOptional({
    type: [String],
    description:
      'Image and PDF URLs (http(s), data:image/… or data:application/pdf): images go to models with supports_images, PDF text joins the context (kind by content); at most 20 images and 10 PDFs, each ≤ 10 MB',
    example: ['https://example.com/chart.png'],
  })
  // no array-size cap here: the service answers 413 beyond 20 images / 10 PDFs (the body limit bounds the array)
  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  file_urls?: string[];

  @ApiPropertyOptional({
    description: 'When true, response.text is a JSON document serialised as a string',
    default: false,
    example: false,
  })
  @IsOptional()
  @IsBoolean()
  response_format_json?: boolean;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: null,
    description: 'Project (prj_…) whose materials are added to the context; null is the same as absent',
  })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  project_id?: string | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: null,
    description: 'Knowledge base (vector store id, vs_…) searched by RAG; null is the same as absent',
  })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  knowledge_base_id?: string | null;

  @ApiPropertyOptional({
    enum: CONTEXT_MODES,
    nullable: true,
    example: null,
    description:
      "Extension: context mode for this request (default: the project's mode). big_docs_mode, code_mode and data_analysis_mode give materials in full; default uses RAG unless the model is full_context",
  })
  @IsOptional()
  @IsIn(CONTEXT_MODES as string[])
  mode?: RequestedMode | null;

  @ApiPropertyOptional({
    type: [ChatTurnDto],
    description: 'Earlier conversation turns (user/assistant), oldest first',
  })
  @IsOptional()
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => ChatTurnDto)
  messages?: ChatTurnDto[];

  @ApiPropertyOptional({
    description: 'Extension: stream Server-Sent Events (events `delta`, `reasoning`, `done`, `error`)',
    default: false,
  })
  @IsOptional()
  @IsBoolean()
  stream?: boolean;

  @ApiPropertyOptional({ description: "Extension: output token cap (default: the model's output cap)", example: 512 })
  @IsOptional()
  @IsInt()
  @Min(1)
  max_tokens?: number;

  @ApiPropertyOptional({
    type: [String],
    description:
      "Extension: model keys tried in order when the model fails with a retryable error (after its retries) or is unavailable; replaces the catalog's `fallbacks`. `model.model` in the answer and the `x-gateway-model` header name the model that served; the charge uses its prices.",
    example: ['local'],
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(5)
  @IsString({ each: true })
  @IsNotEmpty({ each: true })
  fallbacks?: string[];

  @ApiPropertyOptional({ description: 'Extension: sampling temperature 0–2', example: 0.2 })
  @IsOptional()
  @IsNumber()
  @Min(0)
  @Max(2)
  temperature?: number;
}
