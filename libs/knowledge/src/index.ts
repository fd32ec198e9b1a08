/**
 * What other modules use of knowledge: the module, the internal store API (KnowledgeStore and its
 * read models), the upload shape and limits, and the chunking rules. The knowledge services and
 * their rows stay inside.
 */
export * from './knowledge.module';
export * from './store/knowledge-store';
export { MAX_FILE_BYTES } from './files.service';
export type { UploadedBytes } from './files.service';
export * from './kb-rules';
