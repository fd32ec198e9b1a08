export * from './types';
export * from './providers.module';
export * from './provider-registry';
export * from './model-catalog.service';
export * from './catalog/model-catalog';
export * from './chat-provider';
export { ProviderAbortError, isProviderAbortError } from './http/provider-http.client';
export { TokenCounter } from './local/tokenizer';
export { LexicalEmbedder } from './local/lexical-embedder';
