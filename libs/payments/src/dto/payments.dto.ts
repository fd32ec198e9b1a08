import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsNumber, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';

export const PAYMENT_STATUSES = ['pending', 'succeeded', 'canceled', 'failed'] as const;

export class CreatePaymentDto {
  @ApiProperty({ description: 'RUB to pay and credit, at most two decimals', example: 1500 })
  @IsNumber({ maxDecimalPlaces: 2, allowNaN: false, allowInfinity: false })
  amount_rub: number;

  @ApiPropertyOptional({
    description: 'where the payer returns after paying (same origin as PAYMENTS_RETURN_URL); default the Billing page',
    example: 'https://gateway.example.com/billing',
  })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  return_url?: string;
}

export class PaymentDto {
  @ApiProperty({ example: '8a5b2d0c-3f4e-4d6a-9b1c-2e7f8a9b0c1d' }) id: string;
  @ApiProperty({ example: '3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b' }) team_id: string;
  @ApiProperty({ enum: PAYMENT_STATUSES, example: 'pending' }) status: string;
  @ApiProperty({ description: 'RUB asked for', example: 1500 }) amount_rub: number;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'RUB credited to the balance (null until paid)',
    example: null,
  })
  credited_rub: number | null;
  @ApiProperty({ type: String, nullable: true, description: 'the payment page at YooKassa (pending only)' })
  confirmation_url: string | null;
  @ApiProperty({ type: String, nullable: true, example: '2d5a7e1f-000f-5000-9000-1b3c4d5e6f70' })
  provider_payment_id: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'YooKassa cancellation_details.reason' })
  cancellation_reason: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'the e-mail a 54-FZ receipt goes to' })
  receipt_email: string | null;
  @ApiProperty({ example: '2026-11-28T10:00:00.000Z' }) created_at: string;
  @ApiProperty({ example: '2026-11-28T10:00:00.000Z' }) updated_at: string;
  @ApiProperty({ type: String, nullable: true, example: '2026-11-28T10:01:00.000Z' }) paid_at: string | null;
}

export class PaymentListDto {
  @ApiProperty({ example: 'list' }) object: 'list';
  @ApiProperty({ type: [PaymentDto] }) data: PaymentDto[];
  @ApiProperty() has_more: boolean;
  @ApiProperty({ type: String, nullable: true, description: 'pass as `after` for the next page' })
  next_cursor: string | null;
}

export class ListPaymentsQueryDto {
  @ApiPropertyOptional({ minimum: 1, maximum: 100, default: 20 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;

  @ApiPropertyOptional({ description: 'next_cursor of the previous page' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  after?: string;
}

export class PaymentsSettingsDto {
  @ApiProperty({ description: 'false: top-ups are not configured (the endpoints answer 404 payments_disabled)' })
  enabled: boolean;
  @ApiProperty({ example: 'yookassa', type: String, nullable: true }) provider: string | null;
  @ApiProperty({ example: 100 }) min_rub: number;
  @ApiProperty({ example: 1000000 }) max_rub: number;
  @ApiProperty({ type: [Number], example: [500, 1500, 5000, 15000] }) presets: number[];
}

export class NotificationAckDto {
  @ApiProperty({ example: true }) ok: boolean;
}
