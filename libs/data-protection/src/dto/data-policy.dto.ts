import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsNotEmpty,
  IsOptional,
  IsString,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import type { PiiEntityType } from '../detectors';
import {
  PII_ENTITY_TYPES,
  PII_MODES,
  PII_SCOPES,
  RESIDENCIES,
  type PiiMode,
  type PiiScope,
  type Residency,
} from '../policy';

export class CustomPatternDto {
  @ApiProperty({ description: 'Name of the pattern; its placeholders are [NAME_1], [NAME_2] …', example: 'order_id' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(64)
  name: string;

  @ApiProperty({
    description: 'A JavaScript regular expression (no back-references or nested quantifiers; at most 500 characters)',
    example: 'ORD-\\d{6}',
  })
  @IsString()
  @IsNotEmpty()
  @MaxLength(500)
  regex: string;
}

/** The detection settings of a data policy, each optional (defaults: foreign_only, every entity, none, none). */
export class DataPolicyDetectionDto {
  @ApiPropertyOptional({
    enum: PII_SCOPES,
    description: 'foreign_only: mask/block only for providers outside Russia; all_providers: for every provider',
  })
  @IsOptional()
  @IsIn(PII_SCOPES)
  pii_scope?: PiiScope;

  @ApiPropertyOptional({
    enum: PII_ENTITY_TYPES,
    isArray: true,
    description: 'Entity types detected (default: all)',
    example: ['email', 'phone', 'passport'],
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(PII_ENTITY_TYPES.length)
  @IsIn(PII_ENTITY_TYPES, { each: true })
  entities?: PiiEntityType[];

  @ApiPropertyOptional({ type: [CustomPatternDto], description: 'Own patterns (rejected patterns answer 400)' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @ValidateNested({ each: true })
  @Type(() => CustomPatternDto)
  custom_patterns?: CustomPatternDto[];

  @ApiPropertyOptional({
    type: [String],
    description: 'Values never treated as personal data (e.g. the company support address)',
    example: ['support@example.com'],
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(500)
  @IsString({ each: true })
  @IsNotEmpty({ each: true })
  @MaxLength(320, { each: true })
  allow_list?: string[];
}

/** A key's own data policy: each field optional; what it leaves out is its team's. */
export class KeyDataPolicyDto extends DataPolicyDetectionDto {
  @ApiPropertyOptional({
    enum: RESIDENCIES,
    description: 'any: every model; ru_only: only models whose provider keeps data in Russia',
  })
  @IsOptional()
  @IsIn(RESIDENCIES)
  residency?: Residency;

  @ApiPropertyOptional({
    enum: PII_MODES,
    description:
      'off; mask: personal data replaced by placeholders upstream and restored in the answer; block: 400 pii_detected',
  })
  @IsOptional()
  @IsIn(PII_MODES)
  pii?: PiiMode;
}

/** PUT body of a team's data policy: residency and pii are required, the rest has defaults. */
export class PutDataPolicyDto extends DataPolicyDetectionDto {
  @ApiProperty({
    enum: RESIDENCIES,
    description: 'any: every model; ru_only: only models whose provider keeps data in Russia',
    example: 'ru_only',
  })
  @IsIn(RESIDENCIES)
  residency: Residency;

  @ApiProperty({
    enum: PII_MODES,
    description:
      'off; mask: personal data replaced by placeholders upstream and restored in the answer; block: 400 pii_detected',
    example: 'mask',
  })
  @IsIn(PII_MODES)
  pii: PiiMode;
}

export class DataPolicyDto {
  @ApiProperty({ enum: RESIDENCIES, example: 'ru_only' }) residency: Residency;
  @ApiProperty({ enum: PII_MODES, example: 'mask' }) pii: PiiMode;
  @ApiProperty({ enum: PII_SCOPES, example: 'foreign_only' }) pii_scope: PiiScope;
  @ApiProperty({ enum: PII_ENTITY_TYPES, isArray: true, example: ['email', 'phone'] }) entities: PiiEntityType[];
  @ApiProperty({ type: [CustomPatternDto] }) custom_patterns: CustomPatternDto[];
  @ApiProperty({ type: [String], example: ['support@example.com'] }) allow_list: string[];
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'When the policy was last set (null: never set; the open default applies)',
    example: '2026-11-28T10:00:00.000Z',
  })
  updated_at: string | null;
}
