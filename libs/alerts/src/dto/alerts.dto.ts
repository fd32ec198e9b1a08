import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  Allow,
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsEmail,
  IsIn,
  IsInt,
  IsNumber,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateNested,
} from 'class-validator';
import {
  ALERT_KINDS,
  ALERT_LANGUAGES,
  type AlertKind,
  type AlertLanguage,
  CHANNEL_TYPES,
  type ChannelType,
  TELEGRAM_BOT_TOKEN,
} from '../alert-rules';

const PERCENT_SCHEMA = {
  oneOf: [
    { type: 'number', minimum: 0, maximum: 1000 },
    { type: 'array', items: { type: 'number', minimum: 0, maximum: 1000 }, minItems: 1, maxItems: 10 },
  ],
};

export class AlertChannelInputDto {
  @ApiProperty({ enum: CHANNEL_TYPES, example: 'webhook' })
  @IsIn(CHANNEL_TYPES as unknown as string[])
  type: ChannelType;

  @ApiPropertyOptional({
    description: 'webhook: the https URL deliveries are POSTed to',
    example: 'https://ops.example.com/hooks/gateway',
  })
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  url?: string;

  @ApiPropertyOptional({ description: 'email: recipients', example: ['ops@example.com'], type: [String] })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(20)
  @IsEmail({}, { each: true })
  to?: string[];

  @ApiPropertyOptional({
    description: 'telegram: the bot token (stored encrypted, never returned)',
    example: '123456:ABC-DEF1234ghIkl',
  })
  @IsOptional()
  @IsString()
  @MinLength(5)
  @MaxLength(200)
  @Matches(TELEGRAM_BOT_TOKEN, {
    message: 'bot_token must be a Telegram bot token: digits, a colon, then letters, digits, _ or -',
  })
  bot_token?: string;

  @ApiPropertyOptional({
    description: 'telegram: the chat to post to (id or @channel name)',
    example: '-1001234567890',
  })
  @IsOptional()
  @Transform(({ value }: { value: unknown }) => (typeof value === 'number' ? String(value) : value))
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  chat_id?: string;

  @ApiPropertyOptional({
    enum: ALERT_LANGUAGES,
    description:
      "The language of the channel's messages: the e-mail subject and text, the Telegram text, a webhook's `message` (default en; on a PATCH, a channel given again keeps its language)",
    example: 'ru',
  })
  @IsOptional()
  @IsIn(ALERT_LANGUAGES as unknown as string[])
  language?: AlertLanguage;
}

/** A rule's parameters and switch: the fields both a new rule (POST) and a change (PATCH) take. */
class AlertRuleFieldsDto {
  @ApiPropertyOptional({ description: 'balance_below: fire when the balance goes below this many RUB', example: 50 })
  @IsOptional()
  @IsNumber({ maxDecimalPlaces: 6 })
  @Min(0)
  @Max(1_000_000_000)
  threshold_rub?: number;

  @ApiPropertyOptional({
    description: "budget_used: the key whose spend is watched (absent: the team's)",
    example: '7d444840-9dc0-11d1-b245-5ffdce74fad2',
  })
  @IsOptional()
  @IsUUID()
  api_key_id?: string;

  @ApiPropertyOptional({ enum: ['day', 'month'], description: 'budget_used: the UTC period', example: 'month' })
  @IsOptional()
  @IsIn(['day', 'month'])
  period?: 'day' | 'month';

  @ApiPropertyOptional({
    ...PERCENT_SCHEMA,
    description:
      'budget_used: the percentages of the budget that fire (default [50, 80, 100]); error_rate: the error percentage',
    example: [50, 80, 100],
  })
  @IsOptional()
  @Allow()
  percent?: number | number[];

  @ApiPropertyOptional({
    description:
      "budget_used: the budget in RUB the percentages are of (required for a team rule; default for a key: the key's budget of the period)",
    example: 1000,
  })
  @IsOptional()
  @IsNumber({ maxDecimalPlaces: 6 })
  @Min(0.000001)
  @Max(1_000_000_000)
  budget_rub?: number;

  @ApiPropertyOptional({ description: 'error_rate: the window in minutes (default 5)', example: 5 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1440)
  window_minutes?: number;

  @ApiPropertyOptional({
    description: 'error_rate: fewer requests than this in the window are not judged (default 10)',
    example: 10,
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  min_requests?: number;

  @ApiPropertyOptional({ description: 'A disabled rule is not evaluated', example: true })
  @IsOptional()
  @IsBoolean()
  enabled?: boolean;
}

/** The fields a rule may change (PATCH); `kind` cannot change (given, it must be the rule's). */
export class UpdateAlertDto extends AlertRuleFieldsDto {
  @ApiPropertyOptional({ enum: ALERT_KINDS, description: "The rule's kind (cannot change)", example: 'balance_below' })
  @IsOptional()
  @IsIn(ALERT_KINDS as unknown as string[])
  kind?: AlertKind;

  @ApiPropertyOptional({ type: [AlertChannelInputDto], description: 'Where the alert is sent (1 to 10 channels)' })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(10)
  @ValidateNested({ each: true })
  @Type(() => AlertChannelInputDto)
  channels?: AlertChannelInputDto[];
}

/** A new rule (POST): `kind` and `channels` are required. */
export class CreateAlertDto extends AlertRuleFieldsDto {
  @ApiProperty({ enum: ALERT_KINDS, example: 'balance_below' })
  @IsIn(ALERT_KINDS as unknown as string[])
  kind: AlertKind;

  @ApiProperty({ type: [AlertChannelInputDto], description: 'Where the alert is sent (1 to 10 channels)' })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(10)
  @ValidateNested({ each: true })
  @Type(() => AlertChannelInputDto)
  channels: AlertChannelInputDto[];
}

export class AlertChannelDto {
  @ApiProperty({ enum: CHANNEL_TYPES, example: 'webhook' }) type: ChannelType;
  @ApiProperty({ type: String, nullable: true, example: 'https://ops.example.com/hooks/gateway' }) url: string | null;
  @ApiProperty({ type: [String], nullable: true, example: null }) to: string[] | null;
  @ApiProperty({ type: String, nullable: true, example: null }) chat_id: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'telegram: the start and end of the bot token',
    example: null,
  })
  bot_token_hint: string | null;
  @ApiProperty({ enum: ALERT_LANGUAGES, description: "The language of the channel's messages", example: 'en' })
  language: AlertLanguage;
  @ApiPropertyOptional({
    description: 'webhook: the signing secret (Standard Webhooks), in the answer that created the channel only',
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  })
  secret?: string;
}

export class AlertRuleDto {
  @ApiProperty({ example: 'alr_5f2b7c1e9a3d4b6c8e0f1a2b' }) id: string;
  @ApiProperty({ example: 'alert_rule' }) object: 'alert_rule';
  @ApiProperty({ example: '1b4e28ba-2fa1-11d2-883f-0016d3cca427' }) team_id: string;
  @ApiProperty({ enum: ALERT_KINDS, example: 'balance_below' }) kind: AlertKind;
  @ApiProperty({ example: true }) enabled: boolean;
  @ApiProperty({ type: Number, nullable: true, example: 50 }) threshold_rub: number | null;
  @ApiProperty({ type: String, nullable: true, example: null }) api_key_id: string | null;
  @ApiProperty({ type: String, enum: ['day', 'month'], nullable: true, example: null }) period: 'day' | 'month' | null;
  @ApiProperty({ ...PERCENT_SCHEMA, nullable: true, example: null }) percent: number | number[] | null;
  @ApiProperty({ type: Number, nullable: true, example: null }) budget_rub: number | null;
  @ApiProperty({ type: Number, nullable: true, example: null }) window_minutes: number | null;
  @ApiProperty({ type: Number, nullable: true, example: null }) min_requests: number | null;
  @ApiProperty({ type: [AlertChannelDto] }) channels: AlertChannelDto[];
  @ApiProperty({ example: '2026-11-26T10:00:00.000Z' }) created_at: string;
  @ApiProperty({ example: '2026-11-26T10:00:00.000Z' }) updated_at: string;
}

export class AlertRuleListDto {
  @ApiProperty({ example: 'list' }) object: 'list';
  @ApiProperty({ type: [AlertRuleDto] }) data: AlertRuleDto[];
}

export class AlertDeliveryAttemptDto {
  @ApiProperty({ example: 1 }) attempt: number;
  @ApiProperty({ example: '2026-11-26T10:00:01.000Z' }) at: string;
  @ApiProperty({ example: true }) ok: boolean;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'HTTP status of the receiver, when it answered',
    example: 200,
  })
  status_code: number | null;
  @ApiProperty({ type: String, nullable: true, example: null }) error: string | null;
  @ApiProperty({ example: 42 }) duration_ms: number;
}

export class AlertDeliveryDto {
  @ApiProperty({ example: 'ald_0c1d2e3f4a5b6c7d8e9f0a1b' }) id: string;
  @ApiProperty({ enum: CHANNEL_TYPES, example: 'webhook' }) channel_type: ChannelType;
  @ApiProperty({
    description: 'The URL, the recipients, or the chat id',
    example: 'https://ops.example.com/hooks/gateway',
  })
  target: string;
  @ApiProperty({ enum: ['pending', 'delivered', 'failed'], example: 'delivered' }) status: string;
  @ApiProperty({ type: String, nullable: true, example: '2026-11-26T10:00:01.000Z' }) delivered_at: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'pending: when the next attempt is due', example: null })
  next_attempt_at: string | null;
  @ApiProperty({ type: [AlertDeliveryAttemptDto] }) attempts: AlertDeliveryAttemptDto[];
}

/**
 * The observation behind an event as structured fields, so a client can say it in its own language
 * (`message` is the English text; each delivery says it in its channel's language); a field that
 * does not apply to the kind is null.
 */
export class AlertEventDetailsDto {
  @ApiProperty({
    enum: ['RUB', 'percent'],
    nullable: true,
    description: 'The unit of `value` (null on a test)',
    example: 'RUB',
  })
  unit: 'RUB' | 'percent' | null;
  @ApiProperty({ type: String, nullable: true, description: "balance_below: the team's Billing page", example: null })
  billing_url: string | null;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'budget_used: the spend of the period, RUB',
    example: null,
  })
  spent_rub: number | null;
  @ApiProperty({ type: Number, nullable: true, description: 'budget_used: the budget, RUB', example: null })
  budget_rub: number | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'budget_used: the key whose budget it is (null: the team)',
    example: null,
  })
  api_key_id: string | null;
  @ApiProperty({ enum: ['day', 'month'], nullable: true, description: 'budget_used: the budget period', example: null })
  period: 'day' | 'month' | null;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'error_rate: failed requests in the window',
    example: null,
  })
  errors: number | null;
  @ApiProperty({ type: Number, nullable: true, description: 'error_rate: all requests in the window', example: null })
  requests: number | null;
  @ApiProperty({ type: Number, nullable: true, description: 'error_rate: the window, minutes', example: null })
  window_minutes: number | null;
}

export class AlertEventDto {
  @ApiProperty({ example: 'ale_9a8b7c6d5e4f3a2b1c0d9e8f' }) id: string;
  @ApiProperty({ example: 'alert_event' }) object: 'alert_event';
  @ApiProperty({ example: 'alr_5f2b7c1e9a3d4b6c8e0f1a2b' }) rule_id: string;
  @ApiProperty({ enum: ALERT_KINDS, example: 'balance_below' }) kind: AlertKind;
  @ApiProperty({ description: 'The threshold that was crossed (RUB or percent)', example: 50 }) threshold: number;
  @ApiProperty({
    description: 'The period or crossing the event belongs to (d:YYYY-MM-DD, m:YYYY-MM, c:n)',
    example: 'c:0',
  })
  period_key: string;
  @ApiProperty({ description: 'The observed value (RUB or percent)', example: 42.5 }) value: number;
  @ApiProperty({
    example:
      'Balance 42.5 RUB is below 50 RUB. Top up on the Billing page: https://gateway.example.com/billing?team_id=3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b',
  })
  message: string;
  @ApiProperty({ type: AlertEventDetailsDto }) details: AlertEventDetailsDto;
  @ApiProperty({ example: '2026-11-26T10:00:00.000Z' }) fired_at: string;
  @ApiProperty({ description: 'A test sent on request ("send a test"), not a crossed threshold', example: false })
  test: boolean;
  @ApiProperty({ type: [AlertDeliveryDto] }) deliveries: AlertDeliveryDto[];
}

export class AlertEventListDto {
  @ApiProperty({ example: 'list' }) object: 'list';
  @ApiProperty({ type: [AlertEventDto] }) data: AlertEventDto[];
  @ApiProperty({ example: false }) has_more: boolean;
}

export class AlertEventQueryDto {
  @ApiPropertyOptional({ description: 'Only the events of this rule', example: 'alr_5f2b7c1e9a3d4b6c8e0f1a2b' })
  @IsOptional()
  @IsString()
  @MaxLength(40)
  rule_id?: string;

  @ApiPropertyOptional({ description: 'Page size (1-200, default 50)', example: 50 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(200)
  limit?: number;

  @ApiPropertyOptional({
    description: 'Only events fired before this instant (ISO 8601): the previous page',
    example: '2026-11-26T10:00:00.000Z',
  })
  @IsOptional()
  @IsString()
  @MaxLength(40)
  before?: string;
}
