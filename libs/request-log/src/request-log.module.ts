import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuthModule } from '@app/auth';
import { BillingModule } from '@app/billing';
import { ProvidersModule } from '@app/providers';
import { RequestLogEntity } from './entities/request-log.entity';
import { TraceExporter } from './otel/trace-exporter';
import { RequestLogController } from './request-log.controller';
import { RequestLogGuard } from './request-log.guard';
import { RequestLogRecorder } from './request-log.recorder';
import { RequestLogRepository } from './request-log.repository';
import { RequestLogRetention } from './request-log.retention';
import { RequestLogService } from './request-log.service';
import { RequestLogSettings } from './request-log.settings';
import { RequestLogWriter } from './request-log.writer';
import { RequestOutcomes } from './request-outcomes';

/** The team request log (records of model calls, bodies by team setting, retention, API) and trace export. */
@Module({
  imports: [TypeOrmModule.forFeature([RequestLogEntity]), AuthModule, BillingModule, ProvidersModule],
  controllers: [RequestLogController],
  providers: [
    RequestLogRepository,
    RequestLogWriter,
    RequestLogSettings,
    RequestLogRecorder,
    RequestLogRetention,
    RequestLogService,
    RequestLogGuard,
    TraceExporter,
    RequestOutcomes,
  ],
  exports: [RequestLogWriter, RequestLogSettings, TraceExporter, RequestOutcomes],
})
export class RequestLogModule {}
