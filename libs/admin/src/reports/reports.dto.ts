import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsISO8601, IsInt, IsOptional, Max, Min } from 'class-validator';

export class AllTeamsUsageQueryDto {
  @ApiPropertyOptional({
    description: 'Start, inclusive (ISO 8601; default: `to` minus 30 days)',
    example: '2026-11-01T00:00:00Z',
  })
  @IsOptional()
  @IsISO8601({ strict: true })
  from?: string;

  @ApiPropertyOptional({
    description: 'End, exclusive (ISO 8601; default: now); at most 366 days after `from`',
    example: '2026-12-01T00:00:00Z',
  })
  @IsOptional()
  @IsISO8601({ strict: true })
  to?: string;

  @ApiPropertyOptional({
    description: 'How many models the top list holds',
    example: 10,
    default: 10,
    minimum: 1,
    maximum: 100,
  })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  top?: number;
}

export class TeamDaySpendDto {
  @ApiProperty({ description: 'UTC day', example: '2026-11-21' }) day: string;
  @ApiProperty({ example: '1b4e28ba-2fa1-11d2-883f-0016d3cca427' }) team_id: string;
  @ApiProperty({ example: 'acme' }) team_name: string;
  @ApiProperty({ example: 42 }) requests: number;
  @ApiProperty({ description: 'RUB spent (charges)', example: 12.5 }) amount_rub: number;
}

export class TeamSpendDto {
  @ApiProperty({ example: '1b4e28ba-2fa1-11d2-883f-0016d3cca427' }) team_id: string;
  @ApiProperty({ example: 'acme' }) team_name: string;
  @ApiProperty({ example: 420 }) requests: number;
  @ApiProperty({ example: 125.5 }) amount_rub: number;
}

export class ModelSpendDto {
  @ApiProperty({ type: String, nullable: true, example: 'gpt-4o-mini' }) model: string | null;
  @ApiProperty({ example: 420 }) requests: number;
  @ApiProperty({ example: 120_000 }) total_tokens: number;
  @ApiProperty({ example: 125.5 }) amount_rub: number;
}

export class AllTeamsUsageDto {
  @ApiProperty({ example: 'usage.all_teams' }) object: 'usage.all_teams';
  @ApiProperty({ example: '2026-11-01T00:00:00.000Z' }) from: string;
  @ApiProperty({ example: '2026-12-01T00:00:00.000Z' }) to: string;
  @ApiProperty({ type: [TeamDaySpendDto], description: 'Spend per team per UTC day (days with spend only)' })
  days: TeamDaySpendDto[];
  @ApiProperty({ type: [TeamSpendDto], description: 'Spend per team over the range, highest first' })
  teams: TeamSpendDto[];
  @ApiProperty({ type: [ModelSpendDto], description: 'The models with the highest spend over the range' })
  top_models: ModelSpendDto[];
  @ApiProperty({ description: 'RUB spent by every team over the range', example: 300.25 }) total_rub: number;
}

export class TopUpsQueryDto {
  @ApiPropertyOptional({ example: 50, default: 50, minimum: 1, maximum: 200 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(200)
  limit?: number;

  @ApiPropertyOptional({ description: 'Cursor: `next_before` of the previous page', example: 1043 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  before?: number;
}

export class TopUpActorDto {
  @ApiProperty({
    enum: ['user', 'operator_token', 'api_key', 'cli', 'system', 'anonymous'],
    example: 'user',
  })
  type: string;
  @ApiProperty({ type: String, nullable: true, example: '0f8fad5b-d9cb-469f-a165-70867728950e' }) id: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: "The user's e-mail when the actor is a user who still exists",
    example: 'ops@example.com',
  })
  email: string | null;
}

export class TopUpEntryDto {
  @ApiProperty({ description: 'Ledger entry id', example: 1043 }) id: number;
  @ApiProperty({ example: 500 }) amount_rub: number;
  @ApiProperty({ description: 'Balance right after the top-up', example: 1250.5 }) balance_after_rub: number;
  @ApiProperty({ type: String, nullable: true, example: 'inv-42' }) reference: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'November invoice' }) note: string | null;
  @ApiProperty({ type: TopUpActorDto, nullable: true, description: 'Who made it (null: not recorded)' })
  actor: TopUpActorDto | null;
  @ApiProperty({ example: '2026-11-21T10:00:00.000Z' }) created_at: string;
}

export class TopUpListDto {
  @ApiProperty({ example: 'list' }) object: 'list';
  @ApiProperty({ type: [TopUpEntryDto] }) data: TopUpEntryDto[];
  @ApiProperty({ example: false }) has_more: boolean;
  @ApiProperty({ type: Number, nullable: true, description: 'Pass as `before` for the next page', example: null })
  next_before: number | null;
}
