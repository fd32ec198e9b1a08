import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuthModule } from '@app/auth';
import { AuditModule } from '@app/accounts/audit';
import { BillingModule } from '@app/billing';
import { ProvidersModule } from '@app/providers';
import { EmbeddingsModule } from '@app/embeddings';
import { GovernanceModule } from '@app/governance';
import { DocumentParser } from './document-parser';
import {
  FileBatchEntity,
  IngestJobEntity,
  KbChunkEntity,
  KbDocumentEntity,
  VectorStoreEntity,
} from './entities/knowledge.entities';
import { StoredFileEntity } from './entities/stored-file.entity';
import { FilesController } from './files.controller';
import { FilesRepository } from './files.repository';
import { FilesService } from './files.service';
import { IngestionSignal } from './ingestion-signal';
import { IngestionWorker } from './ingestion.worker';
import { KbSearchService } from './kb-search.service';
import { KnowledgeBasesController } from './knowledge-bases.controller';
import { KnowledgeRepository } from './knowledge.repository';
import { KnowledgeService } from './knowledge.service';
import { KnowledgeApiService } from './knowledge-api.service';
import { LibraryDocumentParser } from './parsers/library-document-parser';
import { VectorStoresController } from './vector-stores.controller';

/** Files, knowledge bases (= OpenAI vector stores), durable ingestion and hybrid search. */
@Module({
  imports: [
    TypeOrmModule.forFeature([
      StoredFileEntity,
      VectorStoreEntity,
      KbDocumentEntity,
      KbChunkEntity,
      IngestJobEntity,
      FileBatchEntity,
    ]),
    AuthModule,
    BillingModule,
    ProvidersModule,
    EmbeddingsModule,
    GovernanceModule,
    AuditModule,
  ],
  controllers: [FilesController, VectorStoresController, KnowledgeBasesController],
  providers: [
    { provide: DocumentParser, useClass: LibraryDocumentParser },
    FilesRepository,
    FilesService,
    KnowledgeRepository,
    KnowledgeService,
    KbSearchService,
    KnowledgeApiService,
    IngestionSignal,
    IngestionWorker,
  ],
  exports: [FilesService, KnowledgeService, KbSearchService, DocumentParser],
})
export class KnowledgeModule {}
