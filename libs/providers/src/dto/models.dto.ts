import { ApiProperty } from '@nestjs/swagger';

export class OpenAiModelDto {
  @ApiProperty({ example: 'gpt-4o-mini' }) id: string;
  @ApiProperty({ example: 'model' }) object: 'model';
  @ApiProperty({ example: 1700000000 }) created: number;
  @ApiProperty({ description: 'Provider instance', example: 'openai' }) owned_by: string;
}

export class OpenAiModelListDto {
  @ApiProperty({ example: 'list' }) object: 'list';
  @ApiProperty({ type: [OpenAiModelDto] }) data: OpenAiModelDto[];
}

export class ModelPricingDto {
  @ApiProperty({ example: 15 }) input_rub_per_1m: number;
  @ApiProperty({ example: 60 }) output_rub_per_1m: number;
  @ApiProperty({ nullable: true, type: Number, example: 7.5 }) cache_read_rub_per_1m: number | null;
  @ApiProperty({ nullable: true, type: Number, example: null }) cache_write_rub_per_1m: number | null;
  @ApiProperty({ nullable: true, type: Number, description: 'Per image (chat: per input image; image models: per generated image)', example: 0.1 }) image_rub: number | null;
}

export class CatalogModelDto {
  @ApiProperty({ example: 'gpt-4o-mini' }) key: string;
  @ApiProperty({ example: 'openai' }) provider: string;
  @ApiProperty({ enum: ['chat', 'embedding', 'image'], example: 'chat' }) kind: string;
  @ApiProperty({ example: 128000 }) context_window: number;
  @ApiProperty({ nullable: true, type: Number, example: 16384 }) max_output_tokens: number | null;
  @ApiProperty({ nullable: true, type: Number, description: 'Embedding models only', example: null }) dimensions: number | null;
  @ApiProperty({ example: true }) supports_images: boolean;
  @ApiProperty({ example: true }) supports_tools: boolean;
  @ApiProperty({ description: 'Receives project documents in full instead of RAG fragments', example: false }) full_context: boolean;
  @ApiProperty({ description: 'false when the provider has no credentials configured', example: true }) available: boolean;
  @ApiProperty({ type: ModelPricingDto }) pricing: ModelPricingDto;
}

export class CatalogModelsDto {
  @ApiProperty({ type: [CatalogModelDto] }) data: CatalogModelDto[];
}
