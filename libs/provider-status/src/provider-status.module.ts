import { Module } from '@nestjs/common';
import { AuthModule } from '@app/auth';
import { ProvidersModule } from '@app/providers';
import { ProviderHealthRepository } from './provider-health.repository';
import { ProviderStatusController } from './provider-status.controller';
import { ProviderStatusService } from './provider-status.service';

/** The operator's providers page: configuration status, health from the request log, a test call. */
@Module({
  imports: [AuthModule, ProvidersModule],
  controllers: [ProviderStatusController],
  providers: [ProviderStatusService, ProviderHealthRepository],
})
export class ProviderStatusModule {}
