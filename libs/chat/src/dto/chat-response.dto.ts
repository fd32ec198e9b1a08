import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ChatContextInfoDto, ChatSourceDto } from './chat-context.dto';
import { CostBreakdownDto } from '@app/common';

export class ChatResponseTextDto {
  @ApiProperty({ example: 'RAG combines retrieval with generation…' }) text: string;
  @ApiProperty({
    nullable: true,
    type: String,
    description: 'Reasoning before the answer (some models only)',
    example: null,
  })
  reasoning: string | null;
}

export class ChatUsageDto {
  @ApiProperty({ example: 120 }) prompt_tokens: number;
  @ApiProperty({ example: 48 }) completion_tokens: number;
  @ApiProperty({ example: 168 }) total_tokens: number;
  @ApiProperty({
    nullable: true,
    type: Number,
    description: 'Provider-side cache reads (Claude-family models), else null',
    example: null,
  })
  cache_read_tokens: number | null;
  @ApiProperty({
    nullable: true,
    type: Number,
    description: 'Provider-side cache writes (Claude-family models), else null',
    example: null,
  })
  cache_write_tokens: number | null;
}

export class ChatModelInfoDto {
  @ApiProperty({ example: 'gpt-4o-mini' }) model: string;
  @ApiProperty({ example: 128000 }) context_window: number;
  @ApiProperty({ example: true }) supports_images: boolean;
}

/** POST /api/v1/chat response: text, reasoning, usage, cost and the model's facts. */
export class ChatResponseDto {
  @ApiProperty({ type: ChatResponseTextDto }) response: ChatResponseTextDto;
  @ApiProperty({ type: ChatUsageDto }) usage: ChatUsageDto;
  @ApiProperty({ type: CostBreakdownDto }) cost: CostBreakdownDto;
  @ApiProperty({ type: ChatModelInfoDto }) model: ChatModelInfoDto;
  @ApiProperty({ example: false }) has_reasoning: boolean;
  @ApiPropertyOptional({
    type: [ChatSourceDto],
    description: 'Extension, with project_id / knowledge_base_id / PDFs in file_urls: the sources the model was given',
  })
  sources?: ChatSourceDto[];
  @ApiPropertyOptional({ type: ChatContextInfoDto, description: 'Extension, with a context: how it was built' })
  context?: ChatContextInfoDto;
}

/** `event: delta` of the REST chat stream: the next piece of the answer. */
export class ChatStreamDeltaDto {
  @ApiProperty({ example: 'RAG combines' }) text: string;
}

/** `event: reasoning` of the REST chat stream: the next piece of the reasoning (some models only). */
export class ChatStreamReasoningDto {
  @ApiProperty({ example: 'The user asks about…' }) reasoning: string;
}
