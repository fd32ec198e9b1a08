import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AllowSession, ApiKeyAuth, Caller, CurrentCaller } from '@app/auth';
import { BillingService } from './billing.service';
import {
  BalanceResponseDto,
  UsageQueryDto,
  UsageResponseDto,
  UsageSummaryQueryDto,
  UsageSummaryResponseDto,
} from './dto/billing.dto';
import { UsageSummaryService } from './usage-summary.service';

@ApiTags('Billing')
@ApiKeyAuth()
@AllowSession()
@Controller('api/v1')
export class BillingController {
  constructor(
    private readonly billing: BillingService,
    private readonly summaries: UsageSummaryService,
  ) {}

  @Get('balance')
  @ApiOperation({ summary: "The caller's team balance" })
  @ApiOkResponse({ type: BalanceResponseDto })
  balance(@CurrentCaller() caller: Caller): Promise<BalanceResponseDto> {
    return this.billing.balanceView(caller.teamId);
  }

  @Get('usage')
  @ApiOperation({ summary: "The caller's team ledger, newest first (cursor pagination with `before`)" })
  @ApiOkResponse({ type: UsageResponseDto })
  usage(@CurrentCaller() caller: Caller, @Query() q: UsageQueryDto): Promise<UsageResponseDto> {
    return this.billing.usagePage(caller.teamId, q.limit ?? 50, q.before);
  }

  @Get('usage/summary')
  @ApiOperation({
    summary:
      "The caller's team usage grouped by model, UTC day, API key or endpoint (requests, tokens, RUB) over [from, to), at most 366 days",
  })
  @ApiOkResponse({ type: UsageSummaryResponseDto })
  usageSummary(@CurrentCaller() caller: Caller, @Query() q: UsageSummaryQueryDto): Promise<UsageSummaryResponseDto> {
    return this.summaries.summary(caller.teamId, q);
  }
}
