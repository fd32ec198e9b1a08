export * from './hold-padding';
export * from './input-only';
export * from './embeddings';
export * from './rerank';
export * from './chat-tokens';
export * from './images';
export * from './pricing.service';
export * from './per-call';
