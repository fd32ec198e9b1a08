export * from './rerank.module';
export * from './rerank.service';
export * from './engine';
