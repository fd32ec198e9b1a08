import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { microToRub } from '@app/common';
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
  async balance(@CurrentCaller() caller: Caller): Promise<BalanceResponseDto> {
    const b = await this.billing.balance(caller.teamId);
    return {
      team_id: caller.teamId,
      balance_rub: microToRub(b.balanceMicro),
      reserved_rub: microToRub(b.reservedMicro),
      available_rub: microToRub(Math.max(0, b.balanceMicro - b.reservedMicro)),
      currency: 'RUB',
    };
  }

  @Get('usage')
  @ApiOperation({ summary: "The caller's team ledger, newest first (cursor pagination with `before`)" })
  @ApiOkResponse({ type: UsageResponseDto })
  async usage(@CurrentCaller() caller: Caller, @Query() q: UsageQueryDto): Promise<UsageResponseDto> {
    const limit = q.limit ?? 50;
    const rows = await this.billing.usage(caller.teamId, limit + 1, q.before);
    const page = rows.slice(0, limit);
    return {
      object: 'list',
      data: page.map((e) => ({
        id: e.id, kind: e.kind, request_id: e.requestId, reference: e.reference, endpoint: e.endpoint, model: e.model,
        prompt_tokens: e.promptTokens, completion_tokens: e.completionTokens, total_tokens: e.totalTokens,
        amount_rub: microToRub(e.amountMicro), balance_after_rub: microToRub(e.balanceAfterMicro), created_at: new Date(e.createdAt).toISOString(),
      })),
      has_more: rows.length > limit,
      next_before: rows.length > limit ? page[page.length - 1].id : null,
    };
  }
}
