import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsISO8601, IsNumber, IsOptional, IsString, Max, MaxLength, Min, MinLength } from 'class-validator';

export class CreateCodesDto {
  @ApiProperty({ description: 'RUB each code credits', example: 500 })
  @IsNumber({ maxDecimalPlaces: 2, allowNaN: false, allowInfinity: false })
  @Min(0.01)
  @Max(100_000_000)
  amount_rub: number;

  @ApiProperty({ minimum: 1, maximum: 1000, example: 10 })
  @IsInt()
  @Min(1)
  @Max(1000)
  count: number;

  @ApiPropertyOptional({ description: 'ISO 8601; unused codes stop working then', example: '2027-01-01T00:00:00Z' })
  @IsOptional()
  @IsISO8601({ strict: true })
  expires_at?: string;

  @ApiPropertyOptional({ example: 'Conference promo' })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  note?: string;
}

export class RedemptionCodeDto {
  @ApiProperty({ example: 'rc_3kq9…' }) id: string;
  @ApiProperty({ description: "the code's last four characters", example: 'X7KQ' }) hint: string;
  @ApiProperty({ example: 500 }) amount_rub: number;
  @ApiProperty({ enum: ['unused', 'used', 'expired', 'disabled'], example: 'unused' }) status: string;
  @ApiProperty({ type: String, nullable: true, example: null }) expires_at: string | null;
  @ApiProperty({ type: String, nullable: true, example: null }) used_at: string | null;
  @ApiProperty({ type: String, nullable: true }) used_by_team: string | null;
}

export class CreatedCodeDto extends RedemptionCodeDto {
  @ApiProperty({ description: 'the code itself: shown this once, stored hashed', example: 'RC-7KQ2M9XW4TPHB3N8DFJR' })
  code: string;
}

export class CreatedCodesDto {
  @ApiProperty() batch_id: string;
  @ApiProperty({ type: String, nullable: true }) note: string | null;
  @ApiProperty({ type: [CreatedCodeDto] }) codes: CreatedCodeDto[];
}

export class CodeBatchDto {
  @ApiProperty() batch_id: string;
  @ApiProperty({ type: String, nullable: true }) note: string | null;
  @ApiProperty({ example: 500 }) amount_rub: number;
  @ApiProperty({ example: '2026-11-28T10:00:00.000Z' }) created_at: string;
  @ApiProperty({ example: 10 }) count: number;
  @ApiProperty({ example: 3 }) used: number;
  @ApiProperty({ type: [RedemptionCodeDto] }) codes: RedemptionCodeDto[];
}

export class CodeBatchListDto {
  @ApiProperty({ example: 'list' }) object: 'list';
  @ApiProperty({ type: [CodeBatchDto] }) data: CodeBatchDto[];
}

export class RedeemDto {
  @ApiProperty({ example: 'RC-7KQ2M9XW4TPHB3N8DFJR' })
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  code: string;
}

export class RedeemResultDto {
  @ApiProperty() team_id: string;
  @ApiProperty({ example: 500 }) credited_rub: number;
  @ApiProperty({ example: 1500 }) balance_rub: number;
}
