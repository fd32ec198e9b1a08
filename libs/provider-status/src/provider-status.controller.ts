import { Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { AdminAuth } from '@app/auth';
import { ProviderStatusService } from './provider-status.service';
import { ProviderStatusListDto, ProviderTestResultDto } from './provider-status.dto';

@ApiTags('Admin')
@AdminAuth()
@Controller('api/v1/admin/providers')
export class ProviderStatusController {
  constructor(private readonly providers: ProviderStatusService) {}

  @Get()
  @ApiOperation({
    summary: 'Every provider: configuration (credential, base URL, CA file) and health over the last hour and day',
    description:
      'Health comes from the request log: calls served by the provider, upstream failures (429, 5xx), their rate and p50/p95 latency.',
  })
  @ApiOkResponse({ type: ProviderStatusListDto })
  list(): Promise<ProviderStatusListDto> {
    return this.providers.list();
  }

  @Post(':name/test')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Test a provider: the smallest real request (its cheapest chat model, one word, max_tokens 1)',
    description:
      'Answers 200 with ok, the latency and the error the gateway would give a caller; nothing is charged or logged as a team call.',
  })
  @ApiParam({ name: 'name', description: 'The provider (GET /api/v1/admin/providers lists them)', example: 'local' })
  @ApiOkResponse({ type: ProviderTestResultDto })
  test(@Param('name') name: string): Promise<ProviderTestResultDto> {
    return this.providers.test(name);
  }
}
