import { Module } from '@nestjs/common';
import { AuthModule } from '@app/auth';
import { ModelCatalogService } from './model-catalog.service';
import { ModelsController } from './models.controller';
import { ProviderRegistry } from './provider-registry';
import { DeploymentCooldowns, ResilienceEvents, UpstreamRouter } from './resilience';

@Module({
  imports: [AuthModule],
  controllers: [ModelsController],
  providers: [ProviderRegistry, ModelCatalogService, DeploymentCooldowns, ResilienceEvents, UpstreamRouter],
  exports: [ProviderRegistry, ModelCatalogService, ResilienceEvents, UpstreamRouter],
})
export class ProvidersModule {}
