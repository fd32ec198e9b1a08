import { Module } from '@nestjs/common';
import { AuthModule } from '@app/auth';
import { BillingModule } from '@app/billing';
import { ProvidersModule } from '@app/providers';
import { CohereRerankController } from './cohere-rerank.controller';
import { EmbeddingsApiService } from './embeddings-api.service';
import { EmbeddingsController } from './embeddings.controller';
import { EmbeddingsService } from './embeddings.service';
import { rerankCacheIndexProvider } from './rerank-cache.index';
import { RerankCacheStore } from './rerank-cache.store';
import { RerankController } from './rerank.controller';
import { RerankService } from './rerank.service';

@Module({
  imports: [AuthModule, BillingModule, ProvidersModule],
  controllers: [RerankController, CohereRerankController, EmbeddingsController],
  providers: [EmbeddingsService, EmbeddingsApiService, rerankCacheIndexProvider, RerankCacheStore, RerankService],
  exports: [EmbeddingsService, RerankService],
})
export class RerankModule {}
