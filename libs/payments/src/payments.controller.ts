import { Body, Controller, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { AdminAuth } from '@app/auth';
import { CurrentPrincipal, PeopleAuth, Principal, TeamAccess } from '@app/accounts';
import {
  CreatePaymentDto,
  ListPaymentsQueryDto,
  NotificationAckDto,
  PaymentDto,
  PaymentListDto,
  PaymentsSettingsDto,
} from './dto/payments.dto';
import { PaymentNotifications } from './payment-notifications';
import { PaymentsService } from './payments.service';

/** A team's top-ups (session or operator token; an API key may not pay). */
@ApiTags('Payments')
@PeopleAuth()
@Controller('api/v1')
export class PaymentsController {
  constructor(private readonly payments: PaymentsService) {}

  @Get('payments/settings')
  @ApiOperation({ summary: 'Whether self-service top-ups are configured, and their limits' })
  @ApiOkResponse({ type: PaymentsSettingsDto })
  settings(): PaymentsSettingsDto {
    return this.payments.settings();
  }

  @Post('teams/:team_id/payments')
  @TeamAccess('admin')
  @ApiOperation({ summary: 'Start a top-up: the payer is sent to confirmation_url (YooKassa)' })
  @ApiCreatedResponse({ type: PaymentDto })
  @ApiResponse({ status: 404, description: 'payments_disabled or team_not_found' })
  @ApiResponse({ status: 502, description: 'payment_provider_error: YooKassa did not create the payment' })
  create(
    @Param('team_id') teamId: string,
    @Body() body: CreatePaymentDto,
    @CurrentPrincipal() p: Principal,
  ): Promise<PaymentDto> {
    const payer =
      p.kind === 'session' ? { userId: p.session.userId, email: p.session.email } : { userId: null, email: null };
    return this.payments.create(teamId.toLowerCase(), body, payer);
  }

  @Get('teams/:team_id/payments')
  @TeamAccess('viewer')
  @ApiOperation({ summary: "The team's top-ups, newest first (cursor paging)" })
  @ApiOkResponse({ type: PaymentListDto })
  list(@Param('team_id') teamId: string, @Query() q: ListPaymentsQueryDto): Promise<PaymentListDto> {
    this.payments.assertEnabled();
    return this.payments.list(teamId.toLowerCase(), q.limit ?? 20, q.after);
  }

  @Get('teams/:team_id/payments/:payment_id')
  @TeamAccess('viewer')
  @ApiOperation({ summary: 'One top-up (the Billing page follows its status)' })
  @ApiOkResponse({ type: PaymentDto })
  get(@Param('team_id') teamId: string, @Param('payment_id') id: string): Promise<PaymentDto> {
    this.payments.assertEnabled();
    return this.payments.get(teamId.toLowerCase(), id);
  }
}

/** Every team's top-ups, for operators. */
@ApiTags('Admin')
@AdminAuth()
@Controller('api/v1/admin/payments')
export class AdminPaymentsController {
  constructor(private readonly payments: PaymentsService) {}

  @Get()
  @ApiOperation({ summary: "Every team's top-ups, newest first (cursor paging)" })
  @ApiOkResponse({ type: PaymentListDto })
  list(@Query() q: ListPaymentsQueryDto): Promise<PaymentListDto> {
    this.payments.assertEnabled();
    return this.payments.list(null, q.limit ?? 20, q.after);
  }
}

/** YooKassa's HTTP notifications (public: the body is only a hint, YooKassa is asked itself). */
@ApiTags('Payments')
@Controller('api/v1/payments/yookassa')
export class YooKassaNotificationsController {
  constructor(private readonly notifications: PaymentNotifications) {}

  @Post('notifications')
  @HttpCode(200)
  @ApiOperation({ summary: "YooKassa's notification URL (payment.succeeded, payment.canceled, …)" })
  @ApiOkResponse({ type: NotificationAckDto })
  @ApiResponse({ status: 404, description: 'payments_disabled, or a payment id not known here' })
  @ApiResponse({ status: 403, description: 'not from YOOKASSA_NOTIFY_CIDRS' })
  async receive(@Body() body: unknown, @Req() req: Request): Promise<NotificationAckDto> {
    await this.notifications.receive(body, req.ip);
    return { ok: true };
  }
}
