import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsNotEmpty, IsNumber, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';

export class CreateTeamDto {
  @ApiProperty({ description: 'Workspace name', example: 'search-team', maxLength: 200 })
  @IsString() @IsNotEmpty() @MaxLength(200)
  name: string;

  @ApiPropertyOptional({ description: 'Opening balance in RUB (recorded as a top-up in the ledger)', example: 1000, default: 0 })
  @IsOptional() @IsNumber({ maxDecimalPlaces: 6, allowNaN: false, allowInfinity: false }) @Min(0) @Max(1_000_000_000)
  balance_rub?: number;
}

export class TeamDto {
  @ApiProperty({ example: '1b4e28ba-2fa1-11d2-883f-0016d3cca427' }) id: string;
  @ApiProperty({ example: 'search-team' }) name: string;
  @ApiProperty({ example: 1000 }) balance_rub: number;
}

export class TeamDetailsDto extends TeamDto {
  @ApiProperty({ description: 'RUB held by requests in flight', example: 0 }) reserved_rub: number;
  @ApiProperty({ example: '2026-11-21T10:00:00.000Z' }) created_at: string;
}

export class CreateApiKeyDto {
  @ApiPropertyOptional({ description: 'A label for the key', example: 'backend-prod', maxLength: 200 })
  @IsOptional() @IsString() @MaxLength(200)
  name?: string;
}

export class CreatedApiKeyDto {
  @ApiProperty({ example: '6f1c1c53-8b0c-4c37-9d43-6a3e3f0f8e11' }) id: string;
  @ApiProperty({ description: 'The key itself. Shown only in this response; store it now.', example: 'sk-Yh3…' }) api_key: string;
  @ApiProperty({ description: 'Display prefix (safe to show in lists)', example: 'sk-Yh3kq9Zx' }) prefix: string;
  @ApiProperty({ nullable: true, example: 'backend-prod' }) name: string | null;
  @ApiProperty({ example: '2026-11-21T10:00:00.000Z' }) created_at: string;
}

export class TopUpDto {
  @ApiProperty({ description: 'Amount in RUB (> 0, at most 6 decimals)', example: 500 })
  @IsNumber({ maxDecimalPlaces: 6, allowNaN: false, allowInfinity: false }) @Min(0.000001) @Max(1_000_000_000)
  amount_rub: number;

  @ApiPropertyOptional({ description: 'Idempotency reference (e.g. payment id): a repeated reference is not applied twice', example: 'invoice-2026-0042', maxLength: 200 })
  @IsOptional() @IsString() @IsNotEmpty() @MaxLength(200)
  reference?: string;
}

export class TopUpResultDto {
  @ApiProperty({ example: 1500 }) balance_rub: number;
  @ApiProperty({ description: 'false when the reference was already applied (nothing changed)', example: true }) applied: boolean;
}
