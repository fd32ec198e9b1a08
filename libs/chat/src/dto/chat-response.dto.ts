import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ChatContextInfoDto, ChatSourceDto } from './chat-context.dto';

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

export class ChatCostDto {
  @ApiProperty({ example: 0.0018 }) input_cost_rub: number;
  @ApiProperty({ example: 0.00288 }) output_cost_rub: number;
  @ApiProperty({ nullable: true, type: Number, example: null }) image_cost_rub: number | null;
  @ApiProperty({ nullable: true, type: Number, example: null }) cache_cost_rub: number | null;
  @ApiPropertyOptional({
    description: 'With project_id / knowledge_base_id / PDFs: query embeddings and rerank (their own ledger entries)',
    example: 0.000004,
  })
  retrieval_cost_rub?: number;
  @ApiProperty({
    description: 'Charged to the balance (the ledger amounts: the chat, plus retrieval when present)',
    example: 0.00468,
  })
  total_cost_rub: number;
  @ApiProperty({ example: 'RUB' }) currency: 'RUB';
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
  @ApiProperty({ type: ChatCostDto }) cost: ChatCostDto;
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
