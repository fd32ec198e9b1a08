import { ApiProperty } from '@nestjs/swagger';

export class ProviderHealthWindowDto {
  @ApiProperty({ description: 'Calls served by the provider in the window (request log)', example: 120 }) calls: number;
  @ApiProperty({ description: 'Calls that failed upstream (HTTP 429 or 5xx)', example: 3 }) errors: number;
  @ApiProperty({ type: Number, nullable: true, description: 'errors / calls (null without calls)', example: 0.025 })
  error_rate: number | null;
  @ApiProperty({ type: Number, nullable: true, description: 'Median latency, ms (null without calls)', example: 840 })
  p50_ms: number | null;
  @ApiProperty({ type: Number, nullable: true, description: '95th percentile latency, ms', example: 2300 })
  p95_ms: number | null;
}

export class ProviderHealthDto {
  @ApiProperty({ type: ProviderHealthWindowDto }) last_hour: ProviderHealthWindowDto;
  @ApiProperty({ type: ProviderHealthWindowDto }) last_day: ProviderHealthWindowDto;
}

export class ProviderStatusDto {
  @ApiProperty({ example: 'openai' }) name: string;
  @ApiProperty({ description: 'Adapter family', example: 'openai' }) type: string;
  @ApiProperty({ enum: ['ru', 'foreign'], example: 'foreign' }) jurisdiction: string;
  @ApiProperty({ description: 'Credentials are set: its models can be called', example: true }) configured: boolean;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The variables still to set when not configured',
    example: 'OPENAI_API_KEY',
  })
  missing: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Environment prefix (null: needs no configuration)',
    example: 'OPENAI',
  })
  env_prefix: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'https://api.openai.com/v1' }) base_url: string | null;
  @ApiProperty({ description: 'base_url is not the provider’s own default', example: false }) custom_base_url: boolean;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The extra CA bundle file (<PREFIX>_CA_FILE) when the provider takes one and it is set',
    example: null,
  })
  ca_file: string | null;
  @ApiProperty({ description: 'The provider takes a <PREFIX>_CA_FILE', example: false }) takes_ca_file: boolean;
  @ApiProperty({ description: 'Chat models of the catalog served by it', example: 12 }) chat_models: number;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The model "Test" calls (its cheapest chat model)',
    example: 'gpt-4o-mini',
  })
  test_model: string | null;
  @ApiProperty({ type: ProviderHealthDto }) health: ProviderHealthDto;
}

export class ProviderStatusListDto {
  @ApiProperty({ example: 'list' }) object: 'list';
  @ApiProperty({ type: [ProviderStatusDto] }) data: ProviderStatusDto[];
}

export class ProviderTestErrorDto {
  @ApiProperty({ description: 'HTTP status the gateway would answer', example: 502 }) status: number;
  @ApiProperty({ type: String, nullable: true, example: 'upstream_auth_error' }) code: string | null;
  @ApiProperty({ example: "openai (gpt-4o-mini) rejected the gateway's credentials." }) message: string;
}

export class ProviderTestResultDto {
  @ApiProperty({ example: 'openai' }) provider: string;
  @ApiProperty({ type: String, nullable: true, example: 'gpt-4o-mini' }) model: string | null;
  @ApiProperty({ example: true }) ok: boolean;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'Round trip of the upstream call, ms (null: no call made)',
    example: 420,
  })
  latency_ms: number | null;
  @ApiProperty({ type: ProviderTestErrorDto, nullable: true }) error: ProviderTestErrorDto | null;
  @ApiProperty({ example: '2026-11-21T10:00:00.000Z' }) tested_at: string;
}
