/**
 * Adapter families: what turns a definition (provider-definitions.ts) into clients. One per folder;
 * a definition names its family by `type`. Factories get the shared, injected dependencies and a
 * lazy connection (only definitions with env vars have one; `local` never asks for it).
 */
import { Clock, ParserPool } from '@app/common';
import { ChatProvider, EmbeddingProvider } from './chat-provider';
import { ModelEntry } from './catalog/model-catalog';
import { ProviderHttpClient } from './http/provider-http.client';
import { ImageProvider } from './images/image-providers';
import { LexicalEmbedder } from './local/lexical-embedder';
import { TokenizerService } from './tokenizer/tokenizer.service';
import { ProviderConnection } from './types';

export interface ProviderFactoryContext {
  /** API key, base URL and timeout from the definition's env vars; throws for a definition without env */
  connection(): ProviderConnection;
  http: ProviderHttpClient;
  tokenizers: TokenizerService;
  embedder: LexicalEmbedder;
  /** worker threads for CPU-heavy local work (absent in unit tests: inline) */
  pool?: ParserPool;
  /** the gateway's clock (dates responses the provider does not date) */
  clock: Clock;
}

export interface ProviderAdapters {
  type: string;
  chat(ctx: ProviderFactoryContext): ChatProvider;
  embeddings?(ctx: ProviderFactoryContext, model: ModelEntry): EmbeddingProvider;
  images?(ctx: ProviderFactoryContext): ImageProvider;
}
