import { Module } from '@nestjs/common';
import { Scoring } from '@app/chat/context/ports';
import { AuthModule } from '@app/auth';
import { BillingModule } from '@app/billing';
import { ProvidersModule } from '@app/providers';
import { CohereRerankController } from './cohere-rerank.controller';
import { EmbeddingsModule } from '@app/embeddings';
import { rerankCacheIndexProvider } from './rerank-cache.index';
import { RerankCacheStore } from './rerank-cache.store';
import { RerankController } from './rerank.controller';
import { RerankService } from './rerank.service';
import { RerankApiService } from './rerank-api.service';
import { RerankScoring } from './rerank-scoring';

/** The rerank engine and its endpoints; binds chat's Scoring port. */
@Module({
  imports: [AuthModule, BillingModule, ProvidersModule, EmbeddingsModule],
  controllers: [RerankController, CohereRerankController],
  providers: [
    RerankApiService,
    rerankCacheIndexProvider,
    RerankCacheStore,
    RerankService,
    RerankScoring,
    { provide: Scoring, useExisting: RerankScoring },
  ],
  exports: [RerankService, Scoring],
})
export class RerankModule {}
