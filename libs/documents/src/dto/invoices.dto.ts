import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsNumber, IsString, Length, Max, Min } from 'class-validator';

export class CreateInvoiceDto {
  @ApiProperty({ description: 'Amount to pay, RUB (at most 2 decimals), VAT included', example: 12200 })
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0.01)
  @Max(1_000_000_000)
  amount_rub: number;
}

export class InvoiceDto {
  @ApiProperty({ example: 'inv_7f3a…' })
  id: string;

  @ApiProperty({ description: 'INV-<year>-<6 digits>, without gaps per year', example: 'INV-2026-000123' })
  number: string;

  @ApiProperty({ example: 12200 })
  amount_rub: number;

  @ApiProperty({ description: 'VAT included in the amount (0 without VAT)', example: 2200 })
  vat_rub: number;

  @ApiProperty({ description: 'The seller’s VAT rate when issued', enum: ['22', '10', '0', 'none'], example: '22' })
  vat_rate: string;

  @ApiProperty({ enum: ['issued', 'paid'], example: 'issued' })
  status: string;

  @ApiProperty({ example: '2026-11-28T10:00:00.000Z' })
  issued_at: string;

  @ApiProperty({ nullable: true, type: String, example: null })
  paid_at: string | null;

  @ApiProperty({ example: '/api/v1/teams/a1b2c3d4-0000-4000-8000-000000000001/invoices/inv_7f3a/pdf' })
  pdf_url: string;
}

export class InvoiceListDto {
  @ApiProperty({ example: 'list' })
  object: 'list';

  @ApiProperty({ type: [InvoiceDto] })
  data: InvoiceDto[];
}

export class MarkPaidDto {
  @ApiProperty({
    description: 'The payment’s reference (e.g. the payment order); credits once per team',
    example: 'pp-512-2026-11-20',
  })
  @IsString()
  @Length(1, 150)
  reference: string;
}

export class MarkPaidResultDto {
  @ApiProperty({ type: InvoiceDto })
  invoice: InvoiceDto;

  @ApiProperty({ description: 'The team’s balance after the credit', example: 12200 })
  balance_rub: number;

  @ApiPropertyOptional({
    description: 'The ledger reference of the credit',
    example: 'invoice-payment:pp-512-2026-11-20',
  })
  reference: string;
}
