import { Module } from '@nestjs/common';
import { Clock, ClockModule, LoggingModule, MetricsModule, NetModule, SharedCacheModule } from '@app/common';
import { ConfigModule } from '@app/config';
import { DatabaseModule } from '@app/database';
import { AuthModule } from '@app/auth';
import { BillingModule } from '@app/billing';
import { AdminModule } from '@app/admin';
import { ENV_PROVIDERS, ProvidersModule } from '@app/providers';
import { ChatModule } from '@app/chat';
import { RerankModule } from '@app/rerank';
import { EmbeddingsModule } from '@app/embeddings';
import { ImagesModule } from '@app/images';
import { KnowledgeModule } from '@app/knowledge';
import { ProjectsModule } from '@app/projects';
import { AccountsModule } from '@app/accounts';
import { AlertsModule } from '@app/alerts';
import { DocumentsModule } from '@app/documents';
import { ProviderStatusModule } from '@app/provider-status';
import { RequestLogModule } from '@app/request-log';
import { PaymentsModule } from '@app/payments';
import { FxModule } from '@app/fx';
import { PricingModule } from '@app/pricing';
import { DataProtectionModule } from '@app/data-protection';
import { McpModule } from '@app/mcp';
import { HealthController } from './health.controller';

/** Wires the libs together; nothing else. */
@Module({
  imports: [
    ConfigModule.forRoot({ providers: ENV_PROVIDERS }),
    ClockModule,
    NetModule,
    LoggingModule.forRoot(),
    MetricsModule,
    DatabaseModule,
    SharedCacheModule,
    AuthModule,
    BillingModule,
    AdminModule,
    ProvidersModule,
    ChatModule.withPorts([KnowledgeModule, RerankModule]),
    EmbeddingsModule,
    RerankModule,
    ImagesModule,
    KnowledgeModule,
    ProjectsModule.forRoot(),
    AccountsModule,
    AlertsModule,
    DocumentsModule,
    ProviderStatusModule,
    RequestLogModule,
    PaymentsModule,
    FxModule,
    PricingModule,
    DataProtectionModule,
    McpModule,
  ],
  controllers: [HealthController],
})
export class AppModule {}

export { Clock };
