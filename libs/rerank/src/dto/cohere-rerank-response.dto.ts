import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { CostBreakdownDto } from '@app/common';

export class CohereDocumentDto {
  @ApiProperty({ example: 'Washington, D.C. is the capital.' }) text: string;
}

export class CohereResultDto {
  @ApiProperty({ example: 1, description: 'Position of the document in the request' }) index: number;
  @ApiProperty({ example: 0.8123 }) relevance_score: number;
  @ApiPropertyOptional({ type: CohereDocumentDto, description: 'With return_documents: true' })
  document?: CohereDocumentDto;
}

export class CohereApiVersionDto {
  @ApiProperty({ example: '1' }) version: string;
}

export class CohereBilledUnitsDto {
  @ApiProperty({ example: 1 }) search_units: number;
  @ApiProperty({ example: 42 }) input_tokens: number;
}

export class CohereMetaDto {
  @ApiProperty({ type: CohereApiVersionDto }) api_version: CohereApiVersionDto;
  @ApiProperty({ type: CohereBilledUnitsDto }) billed_units: CohereBilledUnitsDto;
}

export class CohereUsageDto {
  @ApiProperty({ example: 42 }) total_tokens: number;
}

/** Cohere / Jina rerank answer (POST /v1/rerank, /v2/rerank) plus the gateway's `cost`. */
export class CohereRerankResponseDto {
  @ApiProperty({ example: 'req_0f3a9c1e' }) id: string;
  @ApiProperty({ example: 'small' }) model: string;
  @ApiProperty({ type: [CohereResultDto] }) results: CohereResultDto[];
  @ApiProperty({ type: CohereMetaDto }) meta: CohereMetaDto;
  @ApiProperty({ type: CohereUsageDto }) usage: CohereUsageDto;
  @ApiProperty({ type: CostBreakdownDto, description: 'Gateway extension: what the ledger charged' })
  cost: CostBreakdownDto;
}
