import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '@app/accounts/audit';
import { AuthModule } from '@app/auth';
import { BillingModule } from '@app/billing';
import { RequestLogModule } from '@app/request-log';
import { AlertDeliveries } from './alert-deliveries';
import { AlertEngine } from './alert-engine';
import { AlertSecrets } from './alert-secrets';
import { AlertSender } from './alert-sender';
import { TeamAdminOrKeyGuard } from './alerts-access';
import { AlertsController } from './alerts.controller';
import { AlertsRepository } from './alerts.repository';
import { AlertsService } from './alerts.service';
import {
  AlertDeliveryAttemptEntity,
  AlertDeliveryEntity,
  AlertEventEntity,
  AlertRuleEntity,
} from './entities/alert.entities';

/** Team alerts on balance, budgets and error rate, delivered by webhook, e-mail and Telegram. */
@Module({
  imports: [
    TypeOrmModule.forFeature([AlertRuleEntity, AlertEventEntity, AlertDeliveryEntity, AlertDeliveryAttemptEntity]),
    AuthModule,
    BillingModule,
    RequestLogModule,
    AuditModule,
  ],
  controllers: [AlertsController],
  providers: [
    AlertsRepository,
    AlertsService,
    AlertSecrets,
    AlertSender,
    AlertDeliveries,
    AlertEngine,
    TeamAdminOrKeyGuard,
  ],
  exports: [AlertEngine, AlertDeliveries],
})
export class AlertsModule {}
