export * from './knowledge.module';
export * from './knowledge.service';
export * from './kb-search.service';
export * from './files.service';
export * from './document-parser';
export * from './kb-rules';
export * from './ingestion.worker';
export * from './document-text';
export { PageQueryDto } from './dto/vector-stores.dto';
