import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsEmail, IsIn, IsOptional, IsString, Length, MaxLength } from 'class-validator';
import { VAT_RATES, VatRate } from '../money/document-money';

export class SellerRequisitesDto {
  @ApiProperty({ description: 'Full legal name of the operator’s company', example: 'ООО «Шлюз Моделей»' })
  @IsString()
  @Length(1, 300)
  legal_name: string;

  @ApiProperty({
    description: 'ИНН: 10 digits (company) or 12 (sole proprietor), check digits verified',
    example: '7736207543',
  })
  @IsString()
  inn: string;

  @ApiPropertyOptional({
    description: 'КПП: 9 characters; required with a 10-digit ИНН',
    example: '770401001',
    nullable: true,
    type: String,
  })
  @IsOptional()
  @IsString()
  kpp?: string | null;

  @ApiProperty({
    description: 'ОГРН (13 digits) or ОГРНИП (15 digits), check digit verified',
    example: '1027700229193',
  })
  @IsString()
  ogrn: string;

  @ApiProperty({ description: 'Legal address', example: '119021, г. Москва, ул. Льва Толстого, д. 16' })
  @IsString()
  @Length(1, 500)
  address: string;

  @ApiProperty({ description: 'Bank name', example: 'ПАО Сбербанк, г. Москва' })
  @IsString()
  @Length(1, 300)
  bank_name: string;

  @ApiProperty({ description: 'БИК: 9 digits', example: '044525225' })
  @IsString()
  bik: string;

  @ApiProperty({
    description: 'Расчётный счёт: 20 digits, control key checked against the БИК',
    example: '40702810438000034726',
  })
  @IsString()
  account: string;

  @ApiProperty({
    description: 'Корреспондентский счёт of the bank: 20 digits, keyed to the БИК',
    example: '30101810400000000225',
  })
  @IsString()
  corr_account: string;

  @ApiProperty({
    description: 'VAT rate of the seller: "22", "10", "0" or "none" (no VAT)',
    enum: VAT_RATES,
    example: '22',
  })
  @IsIn(VAT_RATES)
  vat_rate: VatRate;

  @ApiProperty({ description: 'Who signs documents (head of the company)', example: 'Иванов И. И.' })
  @IsString()
  @Length(1, 200)
  signatory: string;

  @ApiPropertyOptional({
    description: 'Chief accountant (default: the signatory)',
    example: 'Петрова А. С.',
    nullable: true,
    type: String,
  })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  accountant?: string | null;
}

export class SellerRequisitesViewDto extends SellerRequisitesDto {
  @ApiProperty({ example: '2026-11-28T10:00:00.000Z' })
  updated_at: string;
}

export class TeamRequisitesDto {
  @ApiProperty({ description: 'Full legal name of the team’s company', example: 'ПАО Сбербанк' })
  @IsString()
  @Length(1, 300)
  legal_name: string;

  @ApiProperty({ description: 'ИНН: 10 or 12 digits, check digits verified', example: '7707083893' })
  @IsString()
  inn: string;

  @ApiPropertyOptional({
    description: 'КПП: 9 characters (companies)',
    example: '773601001',
    nullable: true,
    type: String,
  })
  @IsOptional()
  @IsString()
  kpp?: string | null;

  @ApiProperty({ description: 'Legal address', example: '117312, г. Москва, ул. Вавилова, д. 19' })
  @IsString()
  @Length(1, 500)
  address: string;

  @ApiPropertyOptional({
    description: 'Invoices and acts are e-mailed here when SMTP is configured',
    example: 'buh@example.ru',
    nullable: true,
    type: String,
  })
  @IsOptional()
  @IsEmail()
  @MaxLength(320)
  email_for_documents?: string | null;
}

export class TeamRequisitesViewDto extends TeamRequisitesDto {
  @ApiProperty({ example: 'a1b2c3d4-0000-4000-8000-000000000001' })
  team_id: string;

  @ApiProperty({ example: '2026-11-28T10:00:00.000Z' })
  updated_at: string;
}
