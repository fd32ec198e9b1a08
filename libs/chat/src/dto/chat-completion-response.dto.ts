import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ChatContextInfoDto, ChatSourceDto } from './chat-context.dto';
import { CostBreakdownDto } from '@app/common';

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
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The refusal message when the model refused, else null',
    example: null,
  })
  refusal: string | null;
  @ApiPropertyOptional({ type: [ToolCallDto] }) tool_calls?: ToolCallDto[];
  @ApiPropertyOptional({
    type: ToolCallFunctionDto,
    description: 'With the deprecated `functions`: the (single) call, instead of tool_calls',
  })
  function_call?: ToolCallFunctionDto;
}

export class CompletionChoiceDto {
  @ApiProperty({ example: 0 }) index: number;
  @ApiProperty({ type: CompletionMessageDto }) message: CompletionMessageDto;
  @ApiProperty({
    type: 'object',
    nullable: true,
    additionalProperties: true,
    description: 'Token log probabilities when `logprobs` was asked and the model gives them, else null',
    example: null,
  })
  logprobs: Record<string, unknown> | null;
  @ApiProperty({
    nullable: true,
    enum: ['stop', 'length', 'tool_calls', 'content_filter', 'function_call'],
    example: 'stop',
  })
  finish_reason: string | null;
}

export class PromptTokensDetailsDto {
  @ApiProperty({ description: 'Prompt tokens read from the provider-side cache', example: 0 }) cached_tokens: number;
}

export class CompletionTokensDetailsDto {
  @ApiProperty({ description: 'Completion tokens spent on reasoning', example: 0 }) reasoning_tokens: number;
}

export class CompletionUsageDto {
  @ApiProperty({ example: 21 }) prompt_tokens: number;
  @ApiProperty({ example: 8 }) completion_tokens: number;
  @ApiProperty({ example: 29 }) total_tokens: number;
  @ApiProperty({ type: PromptTokensDetailsDto }) prompt_tokens_details: PromptTokensDetailsDto;
  @ApiProperty({ type: CompletionTokensDetailsDto }) completion_tokens_details: CompletionTokensDetailsDto;
}

/** `chat.completion` (non-stream answer of POST /v1/chat/completions) with the gateway's `cost`. */
export class ChatCompletionResponseDto {
  @ApiProperty({ example: 'chatcmpl-req_0f3a' }) id: string;
  @ApiProperty({ example: 'chat.completion' }) object: 'chat.completion';
  @ApiProperty({ example: 1767225600 }) created: number;
  @ApiProperty({ example: 'local' }) model: string;
  @ApiProperty({ type: [CompletionChoiceDto] }) choices: CompletionChoiceDto[];
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description: 'The backend configuration fingerprint (not reported by the gateway)',
    example: null,
  })
  system_fingerprint?: string | null;
  @ApiProperty({ type: CompletionUsageDto }) usage: CompletionUsageDto;
  @ApiProperty({ type: CostBreakdownDto, description: 'Gateway extension: what the ledger charged' })
  cost: CostBreakdownDto;
  @ApiPropertyOptional({
    type: [ChatSourceDto],
    description: 'Extension, with project_id / knowledge_base_id: the sources the model was given',
  })
  sources?: ChatSourceDto[];
  @ApiPropertyOptional({ type: ChatContextInfoDto, description: 'Extension, with a context: how it was built' })
  context?: ChatContextInfoDto;
}

export class ToolCallFunctionDeltaDto {
  @ApiPropertyOptional({ example: 'get_weather', description: 'On the first delta of a call' }) name?: string;
  @ApiPropertyOptional({ example: '{"city":', description: 'The next piece of the JSON arguments' })
  arguments?: string;
}

/** A piece of a tool call in a stream: the first names it (id, type, function.name), the rest add arguments. */
export class ToolCallDeltaDto {
  @ApiProperty({ example: 0, description: 'Which tool call of the choice this piece belongs to' }) index: number;
  @ApiPropertyOptional({ example: 'call_abc123' }) id?: string;
  @ApiPropertyOptional({ example: 'function' }) type?: 'function';
  @ApiPropertyOptional({ type: ToolCallFunctionDeltaDto }) function?: ToolCallFunctionDeltaDto;
}

export class ChunkDeltaDto {
  @ApiPropertyOptional({ example: 'assistant' }) role?: 'assistant';
  @ApiPropertyOptional({ nullable: true, type: String, example: 'Paris' }) content?: string | null;
  @ApiPropertyOptional({ nullable: true, type: String, example: null }) reasoning_content?: string | null;
  @ApiPropertyOptional({ type: [ToolCallDeltaDto] }) tool_calls?: ToolCallDeltaDto[];
  @ApiPropertyOptional({
    type: ToolCallFunctionDeltaDto,
    description: 'With the deprecated `functions`: a piece of the (single) call',
  })
  function_call?: ToolCallFunctionDeltaDto;
}

export class ChunkChoiceDto {
  @ApiProperty({ example: 0 }) index: number;
  @ApiProperty({ type: ChunkDeltaDto }) delta: ChunkDeltaDto;
  @ApiPropertyOptional({
    type: 'object',
    nullable: true,
    additionalProperties: true,
    description: 'Token log probabilities of this piece, when asked and given',
    example: null,
  })
  logprobs?: Record<string, unknown> | null;
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
  @ApiPropertyOptional({ type: CostBreakdownDto, description: 'On the usage chunk (gateway extension)' })
  cost?: CostBreakdownDto;
  @ApiPropertyOptional({
    type: [ChatSourceDto],
    description:
      'With a context: on the last chunk before [DONE] (the usage chunk with include_usage, else an extra chunk with choices: [])',
  })
  sources?: ChatSourceDto[];
  @ApiPropertyOptional({ type: ChatContextInfoDto, description: 'With a context: on the same last chunk as sources' })
  context?: ChatContextInfoDto;
}
