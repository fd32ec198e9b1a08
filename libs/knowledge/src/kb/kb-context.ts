import type { Clock } from '@app/common';
import type { ModelCatalogService } from '@app/providers';
import type { DocumentParser } from '../document-parser';
import type { FilesService } from '../files.service';
import type { IngestionSignal } from '../ingestion-signal';
import type { KnowledgeRepository } from '../knowledge.repository';
import type { DocumentWriter } from './document-writer';
import type { StoreAccess } from './store-access';

/** What the helpers of KnowledgeService (documents, file batches, internal stores) share; the service builds it once. */
export interface KbContext {
  repo: KnowledgeRepository;
  files: FilesService;
  parser: DocumentParser;
  catalog: ModelCatalogService;
  signal: IngestionSignal;
  clock: Clock;
  access: StoreAccess;
  writer: DocumentWriter;
}
