import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountsModule, PrincipalGuard } from '@app/accounts';
import { AuthModule } from '@app/auth';
import { BillingModule } from '@app/billing';
import { PaymentEntity } from './entities/payment.entity';
import { RedemptionCodeEntity } from './entities/redemption-code.entity';
import { PaymentNotifications } from './payment-notifications';
import { PaymentReconciler } from './payment-reconciler';
import { AdminPaymentsController, PaymentsController, YooKassaNotificationsController } from './payments.controller';
import { PaymentsRepository } from './payments.repository';
import { PaymentsService } from './payments.service';
import { RedeemController, RedemptionCodesAdminController } from './redemption-codes.controller';
import { RedemptionCodesRepository } from './redemption-codes.repository';
import { RedemptionCodesService } from './redemption-codes.service';
import { YooKassaClient } from './yookassa-client';

/** Money in: YooKassa top-ups (created, notified, reconciled) and redemption codes. */
@Module({
  imports: [TypeOrmModule.forFeature([PaymentEntity, RedemptionCodeEntity]), AuthModule, BillingModule, AccountsModule],
  controllers: [
    PaymentsController,
    AdminPaymentsController,
    YooKassaNotificationsController,
    RedemptionCodesAdminController,
    RedeemController,
  ],
  providers: [
    PaymentsRepository,
    PaymentsService,
    PaymentNotifications,
    PaymentReconciler,
    YooKassaClient,
    RedemptionCodesRepository,
    RedemptionCodesService,
    PrincipalGuard,
  ],
  exports: [PaymentReconciler],
})
export class PaymentsModule {}
