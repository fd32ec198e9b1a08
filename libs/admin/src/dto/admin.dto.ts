import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { MCP_TOOL_PATTERN } from '@app/auth';
import { REQUEST_LOG_LEVELS, type RequestLogBodies } from '@app/billing';
import { KeyDataPolicyDto } from '@app/data-protection/dto/data-policy.dto';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsDateString,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsNumber,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';

export class CreateTeamDto {
  @ApiProperty({ description: 'Workspace name', example: 'search-team', maxLength: 200 })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name: string;

  @ApiPropertyOptional({
    description: 'Opening balance in RUB (recorded as a top-up in the ledger)',
    example: 1000,
    default: 0,
  })
  @IsOptional()
  @IsNumber({ maxDecimalPlaces: 6, allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(1_000_000_000)
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
  @IsOptional()
  @IsString()
  @MaxLength(200)
  name?: string;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description: 'When the key stops working (ISO 8601, in the future); then it answers 401 key_expired',
    example: '2027-01-01T00:00:00.000Z',
  })
  @IsOptional()
  @IsDateString({ strict: true })
  expires_at?: string | null;

  @ApiPropertyOptional({
    type: [String],
    description: 'Model keys the key may call; empty or absent = all. Others answer 403 model_not_allowed.',
    example: ['gpt-4o-mini', 'local-embedding-small'],
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(200)
  @IsString({ each: true })
  @IsNotEmpty({ each: true })
  @MaxLength(200, { each: true })
  allowed_models?: string[];

  @ApiPropertyOptional({
    type: KeyDataPolicyDto,
    nullable: true,
    description:
      "The key's own data policy, at least as strict as its team's (looser: 400 data_policy_looser_than_team); fields left out are the team's; null: the team's",
  })
  @IsOptional()
  @ValidateNested()
  @Type(() => KeyDataPolicyDto)
  data_policy?: KeyDataPolicyDto | null;

  @ApiPropertyOptional({
    type: [String],
    description:
      'MCP tools the key may use through the gateway, as `server/tool` patterns (`*` matches any run of characters: `github/*`, `*/search_*`); empty or absent = none',
    example: ['github/*', 'docs/search'],
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(200)
  @IsString({ each: true })
  @Matches(MCP_TOOL_PATTERN, {
    each: true,
    message: 'allowed_mcp_tools entries must be server/tool patterns (`*` allowed)',
  })
  allowed_mcp_tools?: string[];
}

export class CreatedApiKeyDto {
  @ApiProperty({ example: '6f1c1c53-8b0c-4c37-9d43-6a3e3f0f8e11' }) id: string;
  @ApiProperty({ description: 'The key itself. Shown only in this response; store it now.', example: 'sk-Yh3…' })
  api_key: string;
  @ApiProperty({ description: 'Display prefix (safe to show in lists)', example: 'sk-Yh3kq9Zx' }) prefix: string;
  @ApiProperty({ type: String, nullable: true, example: 'backend-prod' }) name: string | null;
  @ApiProperty({ example: '2026-11-21T10:00:00.000Z' }) created_at: string;
  @ApiProperty({ type: String, nullable: true, example: null }) expires_at: string | null;
  @ApiProperty({ type: [String], example: [] }) allowed_models: string[];
  @ApiProperty({ type: KeyDataPolicyDto, nullable: true, description: "The key's own data policy (null: the team's)" })
  data_policy: KeyDataPolicyDto | null;
  @ApiProperty({ type: [String], example: [] }) allowed_mcp_tools: string[];
}

export class RotateApiKeyDto {
  @ApiProperty({
    description:
      'How long the old secret keeps working, in seconds (0: revoked at once; at most 30 days). It never outlives its own expiry.',
    example: 3600,
    minimum: 0,
    maximum: 2_592_000,
  })
  @IsInt()
  @Min(0)
  @Max(2_592_000)
  grace_seconds: number;
}

export class RotatedApiKeyDto extends CreatedApiKeyDto {
  @ApiProperty({ description: 'The key this one replaces', example: '0b9e4c1a-2f7d-4e55-9a61-1c2d3e4f5a6b' })
  rotated_from: string;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'When the old secret stops working; null: it was revoked at once (grace_seconds 0)',
    example: '2026-11-21T11:00:00.000Z',
  })
  previous_expires_at: string | null;
}

export class TopUpDto {
  @ApiProperty({ description: 'Amount in RUB (> 0, at most 6 decimals)', example: 500 })
  @IsNumber({ maxDecimalPlaces: 6, allowNaN: false, allowInfinity: false })
  @Min(0.000001)
  @Max(1_000_000_000)
  amount_rub: number;

  @ApiPropertyOptional({
    description: 'Idempotency reference (e.g. payment id): a repeated reference is not applied twice',
    example: 'invoice-2026-0042',
    maxLength: 200,
  })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  reference?: string;

  @ApiPropertyOptional({
    description: 'Free-text note kept with the ledger entry and the audit record (with who made the top-up)',
    example: 'Invoice 42 paid by bank transfer',
    maxLength: 500,
  })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  note?: string;
}

export class TopUpResultDto {
  @ApiProperty({ example: 1500 }) balance_rub: number;
  @ApiProperty({ description: 'false when the reference was already applied (nothing changed)', example: true })
  applied: boolean;
}

export class TeamListQueryDto {
  @ApiPropertyOptional({ description: 'Teams per page (1–500)', default: 100, example: 100 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(500)
  limit?: number;

  @ApiPropertyOptional({
    description: 'Cursor: the `next_after` of the previous page (teams come in id order)',
    example: '1b4e28ba-2fa1-11d2-883f-0016d3cca427',
  })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(36)
  after?: string;
}

export class TeamLimitsDto extends TeamDetailsDto {
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'Team requests per minute (null: DEFAULT_TEAM_RPM_LIMIT, unset = unlimited)',
    example: 600,
  })
  rpm_limit: number | null;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'Team tokens per minute (null: DEFAULT_TEAM_TPM_LIMIT, unset = unlimited)',
    example: null,
  })
  tpm_limit: number | null;
  @ApiProperty({
    enum: REQUEST_LOG_LEVELS,
    description:
      'Request log level: none (no records), metadata (records without bodies, the default), full (bodies too, redacted and capped)',
    example: 'metadata',
  })
  request_log_bodies: RequestLogBodies;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'Days request-log records are kept (null: REQUEST_LOG_RETENTION_DAYS, default 30)',
    example: null,
  })
  request_log_retention_days: number | null;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'Days stored bodies are kept (null: REQUEST_LOG_BODY_RETENTION_DAYS, default 7)',
    example: null,
  })
  request_log_body_retention_days: number | null;
  @ApiProperty({
    description:
      '/v1/responses may use MCP servers the team has not registered (server_url), within the outbound address policy',
    example: false,
  })
  mcp_adhoc_servers: boolean;
}

export class TeamListDto {
  @ApiProperty({ example: 'list' }) object: 'list';
  @ApiProperty({ type: [TeamLimitsDto] }) data: TeamLimitsDto[];
  @ApiProperty({ example: false }) has_more: boolean;
  @ApiProperty({ type: String, nullable: true, description: 'Pass as `after` for the next page', example: null })
  next_after: string | null;
}

/** The team's request-log settings (PATCH of the team, by team admins and operators). */
export class RequestLogSettingsDto {
  @ApiPropertyOptional({
    enum: REQUEST_LOG_LEVELS,
    description: 'none: no request-log records; metadata: records without bodies (default); full: bodies too',
    example: 'metadata',
  })
  @IsOptional()
  @IsIn(REQUEST_LOG_LEVELS)
  request_log_bodies?: RequestLogBodies;

  @ApiPropertyOptional({
    type: Number,
    nullable: true,
    description: 'Days request-log records are kept; null: the server default (REQUEST_LOG_RETENTION_DAYS)',
    example: 30,
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(3650)
  request_log_retention_days?: number | null;

  @ApiPropertyOptional({
    type: Number,
    nullable: true,
    description: 'Days stored bodies are kept; null: the server default (REQUEST_LOG_BODY_RETENTION_DAYS)',
    example: 7,
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(3650)
  request_log_body_retention_days?: number | null;

  @ApiPropertyOptional({
    description:
      'Team setting (not the request log): /v1/responses may use MCP servers the team has not registered (default false)',
    example: false,
  })
  @IsOptional()
  @IsBoolean()
  mcp_adhoc_servers?: boolean;
}

export class UpdateTeamDto extends RequestLogSettingsDto {
  @ApiPropertyOptional({ description: 'Workspace name', example: 'search-team', maxLength: 200 })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name?: string;

  @ApiPropertyOptional({
    type: Number,
    nullable: true,
    description: 'Requests per minute for the whole team; null removes it (the env default applies)',
    example: 600,
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(10_000_000)
  rpm_limit?: number | null;

  @ApiPropertyOptional({
    type: Number,
    nullable: true,
    description: 'Tokens per minute for the whole team; null removes it (the env default applies)',
    example: 200000,
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1_000_000_000)
  tpm_limit?: number | null;
}

export class UpdateApiKeyDto {
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description: 'A label for the key; null clears it',
    example: 'backend-prod',
    maxLength: 200,
  })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  name?: string | null;

  @ApiPropertyOptional({
    type: Number,
    nullable: true,
    description: 'Requests per minute for this key; null removes it (DEFAULT_KEY_RPM_LIMIT applies, unset = unlimited)',
    example: 60,
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(10_000_000)
  rpm_limit?: number | null;

  @ApiPropertyOptional({
    type: Number,
    nullable: true,
    description: 'Tokens per minute for this key (prompt counted at admission, completion at settle); null removes it',
    example: 100000,
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1_000_000_000)
  tpm_limit?: number | null;

  @ApiPropertyOptional({
    type: Number,
    nullable: true,
    description: 'RUB this key may spend per UTC day (holds of requests in flight count); null removes the cap',
    example: 50,
  })
  @IsOptional()
  @IsNumber({ maxDecimalPlaces: 6, allowNaN: false, allowInfinity: false })
  @Min(0.000001)
  @Max(1_000_000_000)
  budget_rub_per_day?: number | null;

  @ApiPropertyOptional({
    type: Number,
    nullable: true,
    description: 'RUB this key may spend per UTC calendar month; null removes the cap',
    example: 1000,
  })
  @IsOptional()
  @IsNumber({ maxDecimalPlaces: 6, allowNaN: false, allowInfinity: false })
  @Min(0.000001)
  @Max(1_000_000_000)
  budget_rub_per_month?: number | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description: 'When the key stops working (ISO 8601); null: never',
    example: '2027-01-01T00:00:00.000Z',
  })
  @IsOptional()
  @IsDateString({ strict: true })
  expires_at?: string | null;

  @ApiPropertyOptional({
    nullable: true,
    type: [String],
    description: 'Model keys the key may call; null or [] = all',
    example: ['gpt-4o-mini'],
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(200)
  @IsString({ each: true })
  @IsNotEmpty({ each: true })
  @MaxLength(200, { each: true })
  allowed_models?: string[] | null;

  @ApiPropertyOptional({
    type: KeyDataPolicyDto,
    nullable: true,
    description:
      "The key's own data policy, at least as strict as its team's (looser: 400 data_policy_looser_than_team); fields left out are the team's; null: the team's",
  })
  @IsOptional()
  @ValidateNested()
  @Type(() => KeyDataPolicyDto)
  data_policy?: KeyDataPolicyDto | null;

  @ApiPropertyOptional({
    nullable: true,
    type: [String],
    description: 'MCP tools the key may use, as `server/tool` patterns with `*`; null or [] = none',
    example: ['github/*'],
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(200)
  @IsString({ each: true })
  @Matches(MCP_TOOL_PATTERN, {
    each: true,
    message: 'allowed_mcp_tools entries must be server/tool patterns (`*` allowed)',
  })
  allowed_mcp_tools?: string[] | null;
}

export class ApiKeyDto {
  @ApiProperty({ example: '6f1c1c53-8b0c-4c37-9d43-6a3e3f0f8e11' }) id: string;
  @ApiProperty({ example: '1b4e28ba-2fa1-11d2-883f-0016d3cca427' }) team_id: string;
  @ApiProperty({ description: 'Display prefix', example: 'sk-Yh3kq9Zx' }) prefix: string;
  @ApiProperty({ type: String, nullable: true, example: 'backend-prod' }) name: string | null;
  @ApiProperty({ example: '2026-11-21T10:00:00.000Z' }) created_at: string;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Updated at most once a minute per key and replica',
    example: '2026-11-22T08:15:00.000Z',
  })
  last_used_at: string | null;
  @ApiProperty({ example: false }) revoked: boolean;
  @ApiProperty({ type: String, nullable: true, example: null }) revoked_at: string | null;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'Requests per minute set on the key (null: the default)',
    example: 60,
  })
  rpm_limit: number | null;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'Tokens per minute set on the key (null: the default)',
    example: null,
  })
  tpm_limit: number | null;
  @ApiProperty({ type: Number, nullable: true, description: 'RUB per UTC day (null: no cap)', example: 50 })
  budget_rub_per_day: number | null;
  @ApiProperty({ type: Number, nullable: true, description: 'RUB per UTC month (null: no cap)', example: null })
  budget_rub_per_month: number | null;
  @ApiProperty({ description: 'RUB charged to this key since 00:00 UTC today', example: 1.25 }) spent_rub_today: number;
  @ApiProperty({ description: 'RUB charged to this key since the 1st of this month (UTC)', example: 12.5 })
  spent_rub_this_month: number;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The user who created the key (null: admin API, CLI)',
    example: null,
  })
  created_by: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'When the key stops working (null: never)', example: null })
  expires_at: string | null;
  @ApiProperty({ type: [String], description: 'Models the key may call; empty = all', example: [] })
  allowed_models: string[];
  @ApiProperty({ type: KeyDataPolicyDto, nullable: true, description: "The key's own data policy (null: the team's)" })
  data_policy: KeyDataPolicyDto | null;
  @ApiProperty({
    type: [String],
    description: 'MCP tools the key may use (`server/tool` patterns); empty = none',
    example: [],
  })
  allowed_mcp_tools: string[];
}

export class ApiKeyListDto {
  @ApiProperty({ example: 'list' }) object: 'list';
  @ApiProperty({ type: [ApiKeyDto] }) data: ApiKeyDto[];
}
