import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { microToRub } from './money';

/**
 * What the ledger charged for one request, in RUB: the total and, where the operation has them, its
 * parts. Every priced answer (chat, completions, responses, embeddings, rerank, images) carries it.
 */
export class CostBreakdownDto {
  @ApiPropertyOptional({ description: 'Input (prompt) tokens not served from a cache', example: 0.00031 })
  input_cost_rub?: number;
  @ApiPropertyOptional({ description: 'Generated (output) tokens', example: 0.00048 })
  output_cost_rub?: number;
  @ApiPropertyOptional({
    type: Number,
    nullable: true,
    description: 'Images: input images of a chat (null when there were none), or the generated images',
    example: null,
  })
  image_cost_rub?: number | null;
  @ApiPropertyOptional({
    type: Number,
    nullable: true,
    description: 'Provider-side cache reads and writes (null when the model has no cache prices)',
    example: null,
  })
  cache_cost_rub?: number | null;
  @ApiPropertyOptional({
    description: 'With project_id / knowledge_base_id / PDFs: query embeddings and rerank (their own ledger entries)',
    example: 0.000004,
  })
  retrieval_cost_rub?: number;
  @ApiPropertyOptional({
    description:
      'The model’s flat fee per call, when its catalog entry (or the team’s own prices) has one; /v1/responses with remote MCP tools: summed over its model calls',
    example: 0.5,
  })
  request_cost_rub?: number;
  @ApiPropertyOptional({
    description:
      '/v1/responses with remote MCP tools: the calls of priced registered servers (their own ledger entries)',
    example: 0.5,
  })
  mcp_tool_cost_rub?: number;
  @ApiProperty({ description: 'Charged to the balance: the sum of the ledger entries', example: 0.00079 })
  total_cost_rub: number;
  @ApiProperty({ enum: ['RUB'], example: 'RUB' }) currency: 'RUB';
}

/** The breakdown of an operation priced as one amount (embeddings, rerank, knowledge-base search). */
export function totalCost(chargedMicro: number): CostBreakdownDto {
  return { total_cost_rub: microToRub(chargedMicro), currency: 'RUB' };
}
