import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

const JURISDICTION_DOC =
  "Where the model's provider keeps the data it is sent: `ru` (GigaChat, YandexGPT, the local models) or `foreign`";
const UNAVAILABLE_DOC = 'Why the model cannot be called (the provider variables to set); null when available';

export class OpenAiModelDto {
  @ApiProperty({ example: 'gpt-4o-mini' }) id: string;
  @ApiProperty({ example: 'model' }) object: 'model';
  @ApiProperty({ example: 1700000000 }) created: number;
  @ApiProperty({ description: 'Provider instance', example: 'openai' }) owned_by: string;
  @ApiProperty({ enum: ['ru', 'foreign'], description: JURISDICTION_DOC, example: 'foreign' })
  jurisdiction: 'ru' | 'foreign';
  @ApiProperty({ description: 'false when the provider has no credentials configured', example: true })
  available: boolean;
  @ApiProperty({ nullable: true, type: String, description: UNAVAILABLE_DOC, example: null })
  unavailable_reason: string | null;
}

export class OpenAiModelListDto {
  @ApiProperty({ example: 'list' }) object: 'list';
  @ApiProperty({ type: [OpenAiModelDto] }) data: OpenAiModelDto[];
}

export class AnthropicModelDto {
  @ApiProperty({ example: 'model' }) type: 'model';
  @ApiProperty({ example: 'claude-sonnet-4', description: 'Catalog key, usable as `model` on /v1/messages' })
  id: string;
  @ApiProperty({ example: 'claude-sonnet-4' }) display_name: string;
  @ApiProperty({ example: '2023-11-14T22:13:20Z' }) created_at: string;
}

/** GET /v1/models with the anthropic-version header: Anthropic's list shape (chat models). */
export class AnthropicModelListDto {
  @ApiProperty({ type: [AnthropicModelDto] }) data: AnthropicModelDto[];
  @ApiProperty({ example: false }) has_more: boolean;
  @ApiProperty({ nullable: true, type: String, example: 'gpt-4o' }) first_id: string | null;
  @ApiProperty({ nullable: true, type: String, example: 'local' }) last_id: string | null;
}

export class FxStampDto {
  @ApiProperty({ description: 'RUB per 1 USD (the CBR rate: Value / Nominal)', example: 81.5 }) rate: number;
  @ApiProperty({ description: 'The date of the CBR rate (YYYY-MM-DD)', example: '2026-11-28' }) date: string;
  @ApiProperty({ description: 'FX_MARKUP_PERCENT applied on top of the rate', example: 3 }) markup_percent: number;
}

export class ModelPricingDto {
  @ApiProperty({ example: 15 }) input_rub_per_1m: number;
  @ApiProperty({ example: 60 }) output_rub_per_1m: number;
  @ApiProperty({ nullable: true, type: Number, example: 7.5 }) cache_read_rub_per_1m: number | null;
  @ApiProperty({
    nullable: true,
    type: Number,
    description: 'Cache writes with the default 5-minute lifetime',
    example: null,
  })
  cache_write_rub_per_1m: number | null;
  @ApiProperty({
    nullable: true,
    type: Number,
    description: 'Cache writes with a 1-hour lifetime (Anthropic cache_control ttl "1h"); null: the 5-minute price',
    example: null,
  })
  cache_write_1h_rub_per_1m: number | null;
  @ApiProperty({
    nullable: true,
    type: Number,
    description: 'Chat models: fee per INPUT image. Always null for image models (see `image.per_image_rub`).',
    example: 0.1,
  })
  image_rub: number | null;
  @ApiPropertyOptional({
    nullable: true,
    type: Number,
    description: 'A flat fee per call of the model, on top of the other prices (null: none)',
    example: null,
  })
  request_rub?: number | null;
}

export class ImageModelOptionsDto {
  @ApiProperty({ example: ['auto', '1024x1024', '1024x1536', '1536x1024'] }) sizes: string[];
  @ApiProperty({ example: ['auto', 'low', 'medium', 'high'] }) qualities: string[];
  @ApiProperty({ example: [], description: 'dall-e-3: vivid, natural' }) styles: string[];
  @ApiProperty({ example: ['png', 'jpeg', 'webp'] }) output_formats: string[];
  @ApiProperty({ example: 10 }) max_n: number;
  @ApiProperty({ example: 32000 }) max_prompt_chars: number;
  @ApiProperty({ example: 'auto' }) default_size: string;
  @ApiProperty({ example: 'auto' }) default_quality: string;
  @ApiProperty({
    description:
      'true: charged by provider-reported tokens (pricing.*_rub_per_1m), the table is the fallback and the reservation basis',
    example: true,
  })
  token_priced: boolean;
  @ApiProperty({ example: 1000 }) image_input_rub_per_1m: number;
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'object', additionalProperties: { type: 'number' } },
    description: 'RUB per generated image by size, then quality',
    example: { '1024x1024': { low: 1.088, medium: 4.224, high: 16.64 } },
  })
  per_image_rub: Record<string, Record<string, number>>;
}

export class CatalogModelDto {
  @ApiProperty({ example: 'gpt-4o-mini' }) key: string;
  @ApiProperty({ example: 'openai' }) provider: string;
  @ApiProperty({ enum: ['chat', 'embedding', 'image'], example: 'chat' }) kind: string;
  @ApiProperty({ example: 128000 }) context_window: number;
  @ApiProperty({ nullable: true, type: Number, example: 16384 }) max_output_tokens: number | null;
  @ApiProperty({ nullable: true, type: Number, description: 'Embedding models only', example: null }) dimensions:
    number | null;
  @ApiProperty({ example: true }) supports_images: boolean;
  @ApiProperty({ example: true }) supports_tools: boolean;
  @ApiProperty({ description: 'Receives project documents in full instead of RAG fragments', example: false })
  full_context: boolean;
  @ApiProperty({ enum: ['ru', 'foreign'], description: JURISDICTION_DOC, example: 'foreign' })
  jurisdiction: 'ru' | 'foreign';
  @ApiProperty({ description: 'false when the provider has no credentials configured', example: true })
  available: boolean;
  @ApiProperty({ nullable: true, type: String, description: UNAVAILABLE_DOC, example: null })
  unavailable_reason: string | null;
  @ApiProperty({
    type: ModelPricingDto,
    nullable: true,
    description:
      "The caller's team's RUB prices (its discount or own prices applied; USD-priced models at the day's CBR rate with the markup); null for a USD-priced model while no CBR rate is known",
  })
  pricing: ModelPricingDto | null;
  @ApiProperty({ enum: ['RUB', 'USD'], description: 'The currency the catalog prices this model in', example: 'RUB' })
  price_currency: 'RUB' | 'USD';
  @ApiProperty({
    type: FxStampDto,
    nullable: true,
    description: 'USD-priced models: the CBR rate and markup the RUB prices were computed with',
  })
  fx: FxStampDto | null;
  @ApiProperty({
    type: ImageModelOptionsDto,
    nullable: true,
    description: 'Image models: options and per-image prices; null otherwise',
  })
  image: ImageModelOptionsDto | null;
}

export class CatalogModelsDto {
  @ApiProperty({ type: [CatalogModelDto] }) data: CatalogModelDto[];
}
