export * from './embeddings.module';
export * from './embeddings.service';
