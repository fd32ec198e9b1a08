import { microToRub } from '@app/common';
import type { ChatCost } from '@app/billing';

export interface CostRubDto {
  input_cost_rub: number;
  output_cost_rub: number;
  image_cost_rub: number | null;
  cache_cost_rub: number | null;
  /** with a project / knowledge base / PDF context: the query embeddings and rerank charged with the chat */
  retrieval_cost_rub?: number;
  /** the model's flat fee per call, when it has one (in a tool loop: summed over its model calls) */
  request_cost_rub?: number;
  /** /v1/responses with remote MCP tools: the priced tool calls (their own ledger entries) */
  mcp_tool_cost_rub?: number;
  total_cost_rub: number;
  currency: 'RUB';
}

/**
 * `chargedMicro` is what the ledger charged for the chat call; `retrievalMicro` (only with a
 * context) what its query embeddings and rerank charged. The total shown is their sum.
 * `mcpToolMicro` (only with remote MCP tools) is the part of `chargedMicro` that priced tool calls
 * charged, shown as its own part.
 */
export function costToRub(
  cost: ChatCost,
  chargedMicro: number,
  retrievalMicro?: number,
  mcpToolMicro?: number,
): CostRubDto {
  return {
    input_cost_rub: microToRub(cost.inputMicro),
    output_cost_rub: microToRub(cost.outputMicro),
    image_cost_rub: cost.imageMicro === null ? null : microToRub(cost.imageMicro),
    cache_cost_rub: cost.cacheMicro === null ? null : microToRub(cost.cacheMicro),
    ...(cost.requestMicro !== undefined ? { request_cost_rub: microToRub(cost.requestMicro) } : {}),
    ...(retrievalMicro !== undefined ? { retrieval_cost_rub: microToRub(retrievalMicro) } : {}),
    ...(mcpToolMicro !== undefined ? { mcp_tool_cost_rub: microToRub(mcpToolMicro) } : {}),
    total_cost_rub: microToRub(chargedMicro + (retrievalMicro ?? 0)),
    currency: 'RUB',
  };
}
