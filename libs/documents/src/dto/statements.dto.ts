import { ApiProperty } from '@nestjs/swagger';

export class StatementUploadDto {
  @ApiProperty({
    type: 'string',
    format: 'binary',
    description: 'The statement in 1CClientBankExchange format (Windows-1251)',
  })
  file: unknown;
}

export class StatementPaymentDto {
  @ApiProperty({ description: 'Номер of the payment order', example: '512' })
  number: string;

  @ApiProperty({ description: 'Дата of the payment order', example: '2026-11-20' })
  date: string;

  @ApiProperty({ example: 12200 })
  amount_rub: number;

  @ApiProperty({ example: '7707083893' })
  payer_inn: string;

  @ApiProperty({ example: 'ПАО Сбербанк' })
  payer_name: string;

  @ApiProperty({ example: 'Оплата по счёту INV-2026-000001, в т.ч. НДС 22%' })
  purpose: string;

  @ApiProperty({
    description:
      'credited: matched and credited now; already_credited: matched by an earlier upload; unmatched: left for the operator',
    enum: ['credited', 'already_credited', 'unmatched'],
    example: 'credited',
  })
  status: string;

  @ApiProperty({
    description:
      'Why a payment is unmatched: no_invoice_number, unknown_invoice, foreign_inn, amount_mismatch, invoice_already_paid, not_incoming, not_payment_order',
    nullable: true,
    type: String,
    example: null,
  })
  reason: string | null;

  @ApiProperty({ nullable: true, type: String, example: 'INV-2026-000001' })
  invoice_number: string | null;

  @ApiProperty({ nullable: true, type: String, example: 'a1b2c3d4-0000-4000-8000-000000000001' })
  team_id: string | null;

  @ApiProperty({
    nullable: true,
    type: String,
    description: 'Ledger reference of the credit',
    example: 'bank:512:2026-11-20:7707083893',
  })
  reference: string | null;
}

export class BankStatementDto {
  @ApiProperty({ example: 'stm_1a2b…' })
  id: string;

  @ApiProperty({ description: 'РасчСчет of the statement', example: '40702810438000034726' })
  account: string;

  @ApiProperty({ nullable: true, type: String, example: '2026-11-01' })
  date_from: string | null;

  @ApiProperty({ nullable: true, type: String, example: '2026-11-30' })
  date_to: string | null;

  @ApiProperty({ example: '2026-11-28T10:00:00.000Z' })
  uploaded_at: string;

  @ApiProperty({ description: 'Credited by this upload', example: 12200 })
  credited_rub: number;

  @ApiProperty({ example: 1 })
  credited: number;

  @ApiProperty({ example: 4 })
  unmatched: number;

  @ApiProperty({ type: [StatementPaymentDto] })
  payments: StatementPaymentDto[];
}
