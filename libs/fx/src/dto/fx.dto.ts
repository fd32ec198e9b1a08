import { ApiProperty } from '@nestjs/swagger';

export class FxAlertDto {
  @ApiProperty({ description: 'When the stale alert was raised (ISO 8601)', example: '2026-11-30T09:00:00.000Z' })
  raised_at: string;
  @ApiProperty({ example: 'The CBR USD rate has not been fetched for more than 48 h' }) message: string;
}

export class FxRatesDto {
  @ApiProperty({ example: 'USD' }) currency: string;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'RUB per 1 USD: the CBR rate in use today (null: none known yet)',
    example: 81.5345,
  })
  rate: number | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The CBR date of that rate (YYYY-MM-DD)',
    example: '2026-11-28',
  })
  date: string | null;
  @ApiProperty({ description: 'FX_MARKUP_PERCENT added to USD prices on top of the rate', example: 3 })
  markup_percent: number;
  @ApiProperty({ type: String, nullable: true, description: 'When that rate was fetched (ISO 8601)', example: null })
  fetched_at: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'The last fetch attempt (ISO 8601)', example: null })
  last_attempt_at: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'The last successful fetch (ISO 8601)', example: null })
  last_success_at: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Why the last fetch failed (null: it succeeded)',
    example: null,
  })
  last_error: string | null;
  @ApiProperty({ description: 'true when no fetch succeeded for FX_STALE_HOURS', example: false }) stale: boolean;
  @ApiProperty({
    type: FxAlertDto,
    nullable: true,
    description: 'The operators’ stale-rate alert, while it is up (cleared by the next successful fetch)',
  })
  alert: FxAlertDto | null;
}
