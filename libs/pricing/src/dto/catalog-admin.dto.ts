import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  MaxLength,
  Min,
} from 'class-validator';
import { FxStampDto, ModelPricingDto } from '@app/providers/dto/models.dto';

/** Prices in the entry's currency; null: none (cache prices: the input price applies). */
export class ModelPricesInputDto {
  @ApiPropertyOptional({ description: 'Per 1M input tokens', example: 150 }) input_per_1m?: number;
  @ApiPropertyOptional({ description: 'Per 1M output tokens', example: 600 }) output_per_1m?: number;
  @ApiPropertyOptional({ nullable: true, type: Number, description: 'Per 1M cache-read tokens', example: null })
  cache_read_per_1m?: number | null;
  @ApiPropertyOptional({
    nullable: true,
    type: Number,
    description: 'Per 1M cache-write tokens (5 minutes)',
    example: null,
  })
  cache_write_per_1m?: number | null;
  @ApiPropertyOptional({
    nullable: true,
    type: Number,
    description: 'Per 1M cache-write tokens (1 hour)',
    example: null,
  })
  cache_write_1h_per_1m?: number | null;
  @ApiPropertyOptional({
    nullable: true,
    type: Number,
    description: 'Chat models: per input image (null for image models)',
    example: null,
  })
  image?: number | null;
  @ApiPropertyOptional({
    nullable: true,
    type: Number,
    description: 'A flat fee per call of the model (chat, embeddings, rerank, images), on top of the other prices',
    example: null,
  })
  request?: number | null;
}

/** One upstream deployment of a model (see MODELS_FILE `deployments`). */
export class CatalogDeploymentDto {
  @ApiProperty({ description: 'Stable name in logs and cooldowns (default d<index>)', example: 'eu' }) id: string;
  @ApiProperty({
    nullable: true,
    type: String,
    description: 'Editor: only a URL MODELS_FILE already gives for this model',
    example: null,
  })
  base_url: string | null;
  @ApiProperty({
    nullable: true,
    type: String,
    description: 'An environment variable named *_BASE_URL holding the base URL',
    example: 'AZURE_EU_BASE_URL',
  })
  base_url_env: string | null;
  @ApiProperty({
    nullable: true,
    type: String,
    description: 'An environment variable named *_API_KEY holding the key (default: the provider’s)',
    example: 'AZURE_EU_API_KEY',
  })
  api_key_env: string | null;
  @ApiProperty({ description: 'Relative share of the traffic (> 0)', example: 1 }) weight: number;
}

export class PutCatalogModelDto {
  @ApiPropertyOptional({
    description: 'false: the model answers 404 like an unknown one (default true)',
    example: true,
  })
  @IsOptional()
  @IsBoolean()
  enabled?: boolean;

  @ApiPropertyOptional({
    enum: ['RUB', 'USD'],
    description: 'The currency of the prices (default: the entry’s)',
    example: 'RUB',
  })
  @IsOptional()
  @IsIn(['RUB', 'USD'])
  currency?: 'RUB' | 'USD';

  @ApiPropertyOptional({ type: ModelPricesInputDto, description: 'Token and per-image prices; omitted ones stay' })
  @IsOptional()
  @IsObject()
  // nested: a price that may not be null is refused by name like every body field (the validation pipe)
  @Type(() => ModelPricesInputDto)
  prices?: ModelPricesInputDto;

  @ApiPropertyOptional({
    description: 'Image models: price per generated image by size and quality (every size and quality of the model)',
    type: 'object',
    additionalProperties: { type: 'object', additionalProperties: { type: 'number' } },
    example: {
      '1024x1024': { standard: 4, hd: 8 },
      '1792x1024': { standard: 8, hd: 12 },
      '1024x1792': { standard: 8, hd: 12 },
    },
  })
  @IsOptional()
  @IsObject()
  per_image?: Record<string, Record<string, number>>;

  @ApiPropertyOptional({ description: 'Image models: per 1M image input tokens', example: 0 })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  image_input_per_1m?: number;

  @ApiPropertyOptional({ type: [String], description: 'Extra names the model answers to', example: ['dalle3'] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  aliases?: string[];

  @ApiPropertyOptional({ type: [String], description: 'Models tried in order when this one fails', example: [] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(20)
  @IsString({ each: true })
  fallbacks?: string[];

  @ApiPropertyOptional({
    type: [CatalogDeploymentDto],
    nullable: true,
    description:
      'Replaces the model’s deployments, picked by weight; null: the provider’s own connection. URLs and keys come from the environment (*_BASE_URL, *_API_KEY) or MODELS_FILE',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(20)
  // nested: a deployment's id or weight may be left out (a default applies), not sent as null
  @Type(() => CatalogDeploymentDto)
  deployments?: Partial<CatalogDeploymentDto>[] | null;
}

export class CatalogPerImageDto {
  @ApiProperty({ type: 'object', additionalProperties: { type: 'object', additionalProperties: { type: 'number' } } })
  per_image: Record<string, Record<string, number>>;
  @ApiProperty() image_input_per_1m: number;
}

export class AdminCatalogModelDto {
  @ApiProperty({ example: 'gpt-4o-mini' }) key: string;
  @ApiProperty({ example: 'openai' }) provider: string;
  @ApiProperty({ enum: ['chat', 'embedding', 'image'] }) kind: string;
  @ApiProperty({ description: 'Chat models: takes input images' }) supports_images: boolean;
  @ApiProperty({ description: 'Chat models: takes tools (function calling)' }) supports_tools: boolean;
  @ApiProperty({ example: 128000 }) context_window: number;
  @ApiProperty() enabled: boolean;
  @ApiProperty({
    enum: ['builtin', 'file', 'database'],
    description: 'Where the entry’s prices come from: the built-in catalog, MODELS_FILE or an operator’s override',
  })
  source: 'builtin' | 'file' | 'database';
  @ApiProperty({ enum: ['RUB', 'USD'] }) currency: 'RUB' | 'USD';
  @ApiProperty({ type: ModelPricingDto, description: 'Prices in `currency` (field names keep the _rub suffix)' })
  prices: ModelPricingDto;
  @ApiProperty({
    type: CatalogPerImageDto,
    nullable: true,
    description: 'Image models: per-image prices in `currency`',
  })
  image: CatalogPerImageDto | null;
  @ApiProperty({
    type: ModelPricingDto,
    nullable: true,
    description: 'The RUB prices charged today (USD at the CBR rate with the markup); null: USD without a rate',
  })
  rub_prices: ModelPricingDto | null;
  @ApiProperty({
    type: CatalogPerImageDto,
    nullable: true,
    description:
      'Image models: the per-image prices charged today in RUB; null: not an image model, or USD without a rate',
  })
  rub_image: CatalogPerImageDto | null;
  @ApiProperty({ type: FxStampDto, nullable: true }) fx: FxStampDto | null;
  @ApiProperty({ type: [String] }) aliases: string[];
  @ApiProperty({ type: [String] }) fallbacks: string[];
  @ApiProperty({
    type: [CatalogDeploymentDto],
    nullable: true,
    description: 'The upstream deployments picked by weight; null: the provider’s own connection',
  })
  deployments: CatalogDeploymentDto[] | null;
  @ApiProperty({
    type: [String],
    description:
      'The fields the database override sets (enabled, currency, prices.<name>, per_image, image_input_per_1m, aliases, fallbacks, deployments); the others come from the built-in catalog or MODELS_FILE',
    example: ['prices.input_per_1m'],
  })
  overridden_fields: string[];
  @ApiProperty({ description: 'false when the provider has no credentials configured' }) available: boolean;
}

export class AdminCatalogDto {
  @ApiProperty({ type: [AdminCatalogModelDto] }) data: AdminCatalogModelDto[];
}

export class AdminCatalogQueryDto {
  @ApiPropertyOptional({ description: 'Only models whose key, provider or alias contains this (case-insensitive)' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  q?: string;

  @ApiPropertyOptional({ enum: ['chat', 'embedding', 'image'] })
  @IsOptional()
  @IsIn(['chat', 'embedding', 'image'])
  kind?: 'chat' | 'embedding' | 'image';

  @ApiPropertyOptional({ description: 'Only this provider', example: 'openai' })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  provider?: string;

  @ApiPropertyOptional({ enum: ['builtin', 'file', 'database'], description: 'Where the prices come from' })
  @IsOptional()
  @IsIn(['builtin', 'file', 'database'])
  source?: 'builtin' | 'file' | 'database';

  @ApiPropertyOptional({ enum: ['true', 'false'], description: 'Only enabled (true) or disabled (false) models' })
  @IsOptional()
  @IsIn(['true', 'false'])
  enabled?: 'true' | 'false';

  @ApiPropertyOptional({ enum: ['RUB', 'USD'] })
  @IsOptional()
  @IsIn(['RUB', 'USD'])
  currency?: 'RUB' | 'USD';
}
