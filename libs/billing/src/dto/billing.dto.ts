import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsISO8601, IsOptional, Max, MaxLength, Min } from 'class-validator';

export class BalanceResponseDto {
  @ApiProperty({ description: 'Team workspace id', example: '1b4e28ba-2fa1-11d2-883f-0016d3cca427' }) team_id: string;
  @ApiProperty({ description: 'Current balance in RUB', example: 1250.5 }) balance_rub: number;
  @ApiProperty({ description: 'RUB held by requests in flight (not yet charged)', example: 0.42 }) reserved_rub: number;
  @ApiProperty({ description: 'Balance minus holds: what new requests can use', example: 1250.08 })
  available_rub: number;
  @ApiProperty({ description: 'Always RUB', example: 'RUB' }) currency: 'RUB';
}

export class UsageQueryDto {
  @ApiPropertyOptional({ description: 'Entries per page (1–500)', default: 50, example: 50 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(500)
  limit?: number;

  @ApiPropertyOptional({
    description: 'Cursor: return entries with id lower than this (use the last id of the previous page)',
    example: 1042,
  })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(Number.MAX_SAFE_INTEGER)
  before?: number;
}

export class UsageEntryDto {
  @ApiProperty({ example: 1043 }) id: number;
  @ApiProperty({ enum: ['charge', 'top_up'], example: 'charge' }) kind: string;
  @ApiProperty({ type: String, nullable: true, example: 'req_7f3a…' }) request_id: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Top-up reference', example: null }) reference:
    string | null;
  @ApiProperty({ type: String, nullable: true, example: '/v1/chat/completions' }) endpoint: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'gpt-4o-mini' }) model: string | null;
  @ApiProperty({ example: 120 }) prompt_tokens: number;
  @ApiProperty({ example: 48 }) completion_tokens: number;
  @ApiProperty({ example: 168 }) total_tokens: number;
  @ApiProperty({ description: 'Balance change in RUB: negative for charges, positive for top-ups', example: -0.0312 })
  amount_rub: number;
  @ApiProperty({ description: 'Balance right after this entry', example: 1250.5 }) balance_after_rub: number;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'Charges of USD-priced models: the CBR rate (RUB per USD) the prices were converted with',
    example: null,
  })
  fx_rate: number | null;
  @ApiProperty({ type: String, nullable: true, description: 'The date of that CBR rate (YYYY-MM-DD)', example: null })
  fx_date: string | null;
  @ApiProperty({ example: '2026-11-21T10:00:00.000Z' }) created_at: string;
}

export class UsageResponseDto {
  @ApiProperty({ example: 'list' }) object: 'list';
  @ApiProperty({ type: [UsageEntryDto] }) data: UsageEntryDto[];
  @ApiProperty({ description: 'More entries exist before the last one', example: false }) has_more: boolean;
  @ApiProperty({ type: Number, nullable: true, description: 'Pass as `before` to get the next page', example: null })
  next_before: number | null;
}

export const SUMMARY_GROUPS = ['model', 'day', 'key', 'endpoint'] as const;
export type SummaryGroupBy = (typeof SUMMARY_GROUPS)[number];

export class UsageSummaryQueryDto {
  @ApiPropertyOptional({
    description: 'Start of the range, inclusive (ISO 8601; default: `to` minus 30 days)',
    example: '2026-11-01T00:00:00Z',
  })
  @IsOptional()
  @IsISO8601({ strict: true })
  @MaxLength(40)
  from?: string;

  @ApiPropertyOptional({
    description: 'End of the range, exclusive (ISO 8601; default: now). At most 366 days after `from`.',
    example: '2026-12-01T00:00:00Z',
  })
  @IsOptional()
  @IsISO8601({ strict: true })
  @MaxLength(40)
  to?: string;

  @ApiPropertyOptional({
    description: 'How to group charges: by model, by UTC day, by API key id or by endpoint',
    enum: SUMMARY_GROUPS,
    default: 'model',
    example: 'model',
  })
  @IsOptional()
  @IsIn(SUMMARY_GROUPS)
  group_by?: SummaryGroupBy;
}

export class UsageSummaryGroupDto {
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The group: model key, UTC day (YYYY-MM-DD), API key id or endpoint (null: charges without one)',
    example: 'local',
  })
  group: string | null;
  @ApiProperty({ description: 'Charged requests (ledger charges)', example: 12 }) requests: number;
  @ApiProperty({ example: 1440 }) prompt_tokens: number;
  @ApiProperty({ example: 576 }) completion_tokens: number;
  @ApiProperty({ example: 2016 }) total_tokens: number;
  @ApiProperty({ description: 'RUB charged', example: 0.3744 }) amount_rub: number;
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description: "group_by=key: the key's name (null: none given)",
    example: 'backend-prod',
  })
  key_name?: string | null;
  @ApiPropertyOptional({ type: String, description: "group_by=key: the key's display prefix", example: 'sk-AbCdEfGh' })
  key_prefix?: string;
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description:
      'group_by=key: the e-mail of the user who created the key (null: the admin API, the CLI or a bootstrap)',
    example: 'ada@example.com',
  })
  key_created_by_email?: string | null;
}

export class UsageSummaryResponseDto {
  @ApiProperty({ example: 'usage.summary' }) object: 'usage.summary';
  @ApiProperty({ example: '1b4e28ba-2fa1-11d2-883f-0016d3cca427' }) team_id: string;
  @ApiProperty({ example: '2026-11-01T00:00:00.000Z' }) from: string;
  @ApiProperty({ example: '2026-12-01T00:00:00.000Z' }) to: string;
  @ApiProperty({ enum: SUMMARY_GROUPS, example: 'model' }) group_by: SummaryGroupBy;
  @ApiProperty({ type: [UsageSummaryGroupDto] }) data: UsageSummaryGroupDto[];
  @ApiProperty({ type: UsageSummaryGroupDto, description: 'All groups together (group is null)' })
  total: UsageSummaryGroupDto;
}
