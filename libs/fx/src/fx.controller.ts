import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AllowSession, ApiKeyAuth } from '@app/auth';
import { AppConfig } from '@app/config';
import { FxRatesDto } from './dto/fx.dto';
import { FxService } from './fx.service';

const iso = (ms: number | null | undefined) => (ms === null || ms === undefined ? null : new Date(ms).toISOString());

@ApiTags('Billing')
@ApiKeyAuth()
@AllowSession()
@Controller('api/v1')
export class FxController {
  constructor(
    private readonly fx: FxService,
    private readonly config: AppConfig,
  ) {}

  @Get('fx-rates')
  @ApiOperation({
    summary: 'The CBR USD rate USD-priced models are charged at today, with its date and the fetcher’s state',
  })
  @ApiOkResponse({ type: FxRatesDto })
  rates(): FxRatesDto {
    const { quote, fetchedAt, status, stale } = this.fx.state();
    const hours = this.config.fx.staleHours;
    return {
      currency: 'USD',
      rate: quote ? Number(quote.rate) : null,
      date: quote?.date ?? null,
      markup_percent: this.config.fx.markupPercent,
      fetched_at: iso(fetchedAt),
      last_attempt_at: iso(status?.lastAttemptAt),
      last_success_at: iso(status?.lastSuccessAt),
      last_error: status?.lastError ?? null,
      stale,
      alert: status?.alertRaisedAt
        ? {
            raised_at: iso(status.alertRaisedAt)!,
            message: `The CBR USD rate has not been fetched for more than ${hours} h; prices use the rate of ${quote?.date ?? 'no date (USD-priced models answer 503)'}`,
          }
        : null,
    };
  }
}
