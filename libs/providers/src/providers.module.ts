import { Module } from '@nestjs/common';
import { AuthModule } from '@app/auth';
import { ModelCatalogService } from './model-catalog.service';
import { ModelsController } from './models.controller';
import { ProviderRegistry } from './provider-registry';

@Module({
  imports: [AuthModule],
  controllers: [ModelsController],
  providers: [ProviderRegistry, ModelCatalogService],
  exports: [ProviderRegistry, ModelCatalogService],
})
export class ProvidersModule {}
