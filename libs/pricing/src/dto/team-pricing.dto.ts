import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsNumber, IsObject, IsOptional, Max, Min } from 'class-validator';
import { FxStampDto, ModelPricingDto } from '@app/providers/dto/models.dto';

export class TeamModelPricesDto {
  @ApiPropertyOptional({ example: 120 }) input_per_1m_rub?: number;
  @ApiPropertyOptional({ example: 480 }) output_per_1m_rub?: number;
  @ApiPropertyOptional({ example: 6 }) cache_read_per_1m_rub?: number;
  @ApiPropertyOptional({ example: 18 }) cache_write_per_1m_rub?: number;
  @ApiPropertyOptional({ example: 24 }) cache_write_1h_per_1m_rub?: number;
  @ApiPropertyOptional({ description: 'Chat models: per input image', example: 0.1 }) image_rub?: number;
  @ApiPropertyOptional({
    type: Number,
    nullable: true,
    description:
      'The fee per call (chat, embeddings, rerank, images), at most 6 decimals; 0: no fee for this team; null or left out: the catalog’s fee with the team’s discount and markup',
    example: 0.2,
  })
  request_rub?: number | null;
}

export class PutTeamPricingDto {
  @ApiPropertyOptional({ description: 'Off every catalog price of the team (0–100, default 0)', example: 10 })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(100)
  discount_percent?: number;

  @ApiPropertyOptional({ description: 'On top of every catalog price of the team (default 0)', example: 0 })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(1000)
  markup_percent?: number;

  @ApiPropertyOptional({
    description:
      'The team’s own RUB prices per model (they replace the catalog’s; discount and markup do not apply to them)',
    type: 'object',
    additionalProperties: { $ref: '#/components/schemas/TeamModelPricesDto' },
    example: { 'gpt-4o-mini': { input_per_1m_rub: 12, output_per_1m_rub: 48 } },
  })
  @IsOptional()
  @IsObject()
  models?: Record<string, TeamModelPricesDto>;
}

export class TeamModelPriceViewDto {
  @ApiProperty({ example: 'gpt-4o-mini' }) model: string;
  @ApiProperty({ type: ModelPricingDto, nullable: true, description: 'null: USD-priced and no CBR rate yet' })
  pricing: ModelPricingDto | null;
  @ApiProperty({
    type: 'object',
    nullable: true,
    additionalProperties: { type: 'object', additionalProperties: { type: 'number' } },
    description:
      'Image models: RUB per generated image by size, then quality, at the team’s discount and markup (USD-priced models at the day’s CBR rate); null for other models, and for a USD-priced model while no CBR rate is known',
    example: null,
  })
  per_image_rub: Record<string, Record<string, number>> | null;
  @ApiProperty({ type: FxStampDto, nullable: true }) fx: FxStampDto | null;
}

export class TeamPricingDto {
  @ApiProperty() team_id: string;
  @ApiProperty({ example: 10 }) discount_percent: number;
  @ApiProperty({ example: 0 }) markup_percent: number;
  @ApiProperty({ type: 'object', additionalProperties: { $ref: '#/components/schemas/TeamModelPricesDto' } })
  models: Record<string, TeamModelPricesDto>;
  @ApiProperty({ type: String, nullable: true }) updated_at: string | null;
  @ApiProperty({ type: [TeamModelPriceViewDto], description: 'The RUB prices the team pays today, per model' })
  prices: TeamModelPriceViewDto[];
}
