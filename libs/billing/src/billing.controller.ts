import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiKeyAuth, Caller, CurrentCaller } from '@app/auth';
import { BillingService } from './billing.service';
import { BalanceResponseDto, UsageQueryDto, UsageResponseDto } from './dto/billing.dto';

@ApiTags('Billing')
@ApiKeyAuth()
@Controller('api/v1')
export class BillingController {
  constructor(private readonly billing: BillingService) {}

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
}
