import { Module } from '@nestjs/common';
import { AuthModule } from '@app/auth';
import { Clock, IsolationModule } from '@app/common';
import { ProviderHttpClient } from './http/provider-http.client';
import { LexicalEmbedder } from './local/lexical-embedder';
import { TokenCounter } from './tokenizer/token-counter';
import { ModelCatalogService } from './model-catalog.service';
import { ModelsController } from './models.controller';
import { ProviderRegistry } from './provider-registry';
import { DeploymentCooldowns, ResilienceEvents, UpstreamRouter } from './resilience';
import { TokenizerService } from './tokenizer/tokenizer.service';

@Module({
  imports: [AuthModule, IsolationModule],
  controllers: [ModelsController],
  providers: [
    ProviderRegistry,
    ModelCatalogService,
    {
      provide: ProviderHttpClient,
      useFactory: (clock: Clock) => new ProviderHttpClient(undefined, clock),
      inject: [Clock],
    },
    {
      provide: TokenizerService,
      useFactory: () => new TokenizerService(new TokenCounter('o200k_base'), new TokenCounter('cl100k_base')),
    },
    { provide: LexicalEmbedder, useFactory: () => new LexicalEmbedder() },
    DeploymentCooldowns,
    ResilienceEvents,
    UpstreamRouter,
  ],
  exports: [ProviderRegistry, ModelCatalogService, TokenizerService, LexicalEmbedder, ResilienceEvents, UpstreamRouter],
})
export class ProvidersModule {}
