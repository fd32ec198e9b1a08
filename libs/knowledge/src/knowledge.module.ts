import { Module } from '@nestjs/common';
import { DocumentReader, StoreSearch } from '@app/chat/context/ports';
import { TypeOrmModule } from '@nestjs/typeorm';
import { IsolationModule } from '@app/common';
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
import { FilePartEntity } from './entities/file-part.entity';
import { FilesController } from './files.controller';
import { FilesRepository } from './files.repository';
import { FilesService } from './files.service';
import { IngestionSignal } from './ingestion-signal';
import { IngestionWorker } from './ingestion.worker';
import { KbSearchService } from './kb-search.service';
import { KnowledgeBasesController } from './knowledge-bases.controller';
import { KnowledgeRepository } from './knowledge.repository';
import { KnowledgeService } from './knowledge.service';
import { KnowledgeBasesApiService } from './knowledge-bases-api.service';
import { VectorStoresApiService } from './vector-stores-api.service';
import { LibraryDocumentParser } from './parsers/library-document-parser';
import { PdfOcr } from './parsers/pdf-ocr';
import { VectorStoresController } from './vector-stores.controller';
import { KnowledgeStore } from './store/knowledge-store';
import { KnowledgeStoreService } from './store/knowledge-store.service';
import { ParserDocumentReader } from './store/parser-document-reader';

/**
 * Files, knowledge bases (= OpenAI vector stores), durable ingestion and hybrid search; binds chat's
 * StoreSearch and DocumentReader ports, and provides the internal store API (KnowledgeStore).
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([
      StoredFileEntity,
      FilePartEntity,
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
    IsolationModule,
    AuditModule,
  ],
  controllers: [FilesController, VectorStoresController, KnowledgeBasesController],
  providers: [
    { provide: DocumentParser, useClass: LibraryDocumentParser },
    PdfOcr,
    FilesRepository,
    FilesService,
    KnowledgeRepository,
    KnowledgeService,
    KbSearchService,
    KnowledgeBasesApiService,
    VectorStoresApiService,
    IngestionSignal,
    IngestionWorker,
    KnowledgeStoreService,
    { provide: KnowledgeStore, useExisting: KnowledgeStoreService },
    { provide: StoreSearch, useExisting: KnowledgeStoreService },
    ParserDocumentReader,
    { provide: DocumentReader, useExisting: ParserDocumentReader },
  ],
  exports: [KnowledgeStore, StoreSearch, DocumentReader],
})
export class KnowledgeModule {}
