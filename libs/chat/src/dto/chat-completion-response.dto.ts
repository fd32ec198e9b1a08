import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ChatContextInfoDto, ChatSourceDto } from './chat-context.dto';

export class ToolCallFunctionDto {
  @ApiProperty({ example: 'get_weather' }) name: string;
  @ApiProperty({ example: '{"city":"Paris"}', description: 'JSON text' }) arguments: string;
}

export class ToolCallDto {
  @ApiProperty({ example: 'call_abc123' }) id: string;
  @ApiProperty({ example: 'function' }) type: 'function';
  @ApiProperty({ type: ToolCallFunctionDto }) function: ToolCallFunctionDto;
}

export class CompletionMessageDto {
  @ApiProperty({ example: 'assistant' }) role: 'assistant';
  @ApiProperty({ nullable: true, type: String, example: 'Paris is the capital of France.' }) content: string | null;
  @ApiPropertyOptional({
    nullable: true,
    type: String,
    description: 'Reasoning text of models that expose it',
    example: null,
  })
  reasoning_content?: string | null;
  @ApiPropertyOptional({ type: [ToolCallDto] }) tool_calls?: ToolCallDto[];
}

export class CompletionChoiceDto {
  @ApiProperty({ example: 0 }) index: number;
  @ApiProperty({ type: CompletionMessageDto }) message: CompletionMessageDto;
  @ApiProperty({ nullable: true, enum: ['stop', 'length', 'tool_calls', 'content_filter'], example: 'stop' })
  finish_reason: string | null;
}

export class CompletionUsageDto {
  @ApiProperty({ example: 21 }) prompt_tokens: number;
  @ApiProperty({ example: 8 }) completion_tokens: number;
  @ApiProperty({ example: 29 }) total_tokens: number;
}

export class CompletionCostDto {
  @ApiProperty({ example: 0.00031 }) input_cost_rub: number;
  @ApiProperty({ example: 0.00048 }) output_cost_rub: number;
  @ApiProperty({ nullable: true, type: Number, example: null }) image_cost_rub: number | null;
  @ApiProperty({ nullable: true, type: Number, example: null }) cache_cost_rub: number | null;
  @ApiPropertyOptional({ description: 'With a context: query embeddings and rerank', example: 0.000004 })
  retrieval_cost_rub?: number;
  @ApiProperty({ example: 0.00079 }) total_cost_rub: number;
  @ApiProperty({ example: 'RUB' }) currency: 'RUB';
}

/** `chat.completion` (non-stream answer of POST /v1/chat/completions) with the gateway's `cost`. */
export class ChatCompletionResponseDto {
  @ApiProperty({ example: 'chatcmpl-req_0f3a' }) id: string;
  @ApiProperty({ example: 'chat.completion' }) object: 'chat.completion';
  @ApiProperty({ example: 1767225600 }) created: number;
  @ApiProperty({ example: 'local' }) model: string;
  @ApiProperty({ type: [CompletionChoiceDto] }) choices: CompletionChoiceDto[];
  @ApiProperty({ type: CompletionUsageDto }) usage: CompletionUsageDto;
  @ApiProperty({ type: CompletionCostDto, description: 'Gateway extension: what the ledger charged' })
  cost: CompletionCostDto;
  @ApiPropertyOptional({
    type: [ChatSourceDto],
    description: 'Extension, with project_id / knowledge_base_id: the sources the model was given',
  })
  sources?: ChatSourceDto[];
  @ApiPropertyOptional({ type: ChatContextInfoDto, description: 'Extension, with a context: how it was built' })
  context?: ChatContextInfoDto;
}

export class ChunkDeltaDto {
  @ApiPropertyOptional({ example: 'assistant' }) role?: 'assistant';
  @ApiPropertyOptional({ nullable: true, type: String, example: 'Paris' }) content?: string | null;
  @ApiPropertyOptional({ nullable: true, type: String, example: null }) reasoning_content?: string | null;
  @ApiPropertyOptional({ type: [ToolCallDto] }) tool_calls?: ToolCallDto[];
}

export class ChunkChoiceDto {
  @ApiProperty({ example: 0 }) index: number;
  @ApiProperty({ type: ChunkDeltaDto }) delta: ChunkDeltaDto;
  @ApiProperty({ nullable: true, type: String, example: null }) finish_reason: string | null;
}

/** One `chat.completion.chunk` event of the SSE stream (`data: {…}`, then `data: [DONE]`). */
export class ChatCompletionChunkDto {
  @ApiProperty({ example: 'chatcmpl-req_0f3a' }) id: string;
  @ApiProperty({ example: 'chat.completion.chunk' }) object: 'chat.completion.chunk';
  @ApiProperty({ example: 1767225600 }) created: number;
  @ApiProperty({ example: 'local' }) model: string;
  @ApiProperty({ type: [ChunkChoiceDto] }) choices: ChunkChoiceDto[];
  @ApiPropertyOptional({
    type: CompletionUsageDto,
    nullable: true,
    description: 'On the last chunk with stream_options.include_usage',
  })
  usage?: CompletionUsageDto | null;
  @ApiPropertyOptional({ type: CompletionCostDto, description: 'On the usage chunk (gateway extension)' })
  cost?: CompletionCostDto;
  @ApiPropertyOptional({
    type: [ChatSourceDto],
    description:
      'With a context: on the last chunk before [DONE] (the usage chunk with include_usage, else an extra chunk with choices: [])',
  })
  sources?: ChatSourceDto[];
  @ApiPropertyOptional({ type: ChatContextInfoDto, description: 'With a context: on the same last chunk as sources' })
  context?: ChatContextInfoDto;
}
