export * from './rerank.module';
export * from './rerank.service';
export * from './embeddings.service';
export * from './engine';
