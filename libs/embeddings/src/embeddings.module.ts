import { Module } from '@nestjs/common';
import { AuthModule } from '@app/auth';
import { BillingModule } from '@app/billing';
import { ProvidersModule } from '@app/providers';
import { EmbeddingsApiService } from './embeddings-api.service';
import { EmbeddingsController } from './embeddings.controller';
import { EmbeddingsService } from './embeddings.service';

/** Embeddings: the batching service (shared by rerank, knowledge bases, projects) and /v1/embeddings, /api/v1/embeddings. */
@Module({
  imports: [AuthModule, BillingModule, ProvidersModule],
  controllers: [EmbeddingsController],
  providers: [EmbeddingsService, EmbeddingsApiService],
  exports: [EmbeddingsService],
})
export class EmbeddingsModule {}
