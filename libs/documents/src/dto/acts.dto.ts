import { ApiProperty } from '@nestjs/swagger';
import { IsString, Matches } from 'class-validator';

export class ActQueryDto {
  @ApiProperty({ description: 'The month, YYYY-MM (in DOCUMENTS_TZ)', example: '2026-11' })
  @IsString()
  @Matches(/^\d{4}-(0[1-9]|1[0-2])$/, { message: 'month must be YYYY-MM' })
  month: string;
}

export class ActLineDto {
  @ApiProperty({ nullable: true, type: String, example: 'gpt-4o-mini' })
  model: string | null;

  @ApiProperty({ example: 12 })
  requests: number;

  @ApiProperty({ example: 3456 })
  tokens: number;

  @ApiProperty({ example: 12.34 })
  amount_rub: number;
}

export class ActDto {
  @ApiProperty({ example: '2026-11' })
  month: string;

  @ApiProperty({ example: 'ACT-2026-11-a1b2c3d4' })
  number: string;

  @ApiProperty({ description: 'false: the month is not closed yet (a preliminary act); true: frozen', example: true })
  final: boolean;

  @ApiProperty({ example: 12.34 })
  amount_rub: number;

  @ApiProperty({ example: 2.23 })
  vat_rub: number;

  @ApiProperty({ enum: ['22', '10', '0', 'none'], example: '22' })
  vat_rate: string;

  @ApiProperty({ type: [ActLineDto] })
  lines: ActLineDto[];

  @ApiProperty({ example: '/api/v1/teams/a1b2c3d4-0000-4000-8000-000000000001/acts/2026-11/pdf' })
  pdf_url: string;
}
