import { TokenCounter } from './token-counter';

/**
 * The gateway's two token counters as one injectable (built by ProvidersModule's factory):
 * `chat` (o200k_base) counts prompts and completions for reservations and usage fallbacks,
 * `embeddings` (cl100k_base, the text-embedding-3 encoding) counts and truncates embedding inputs.
 */
export class TokenizerService {
  constructor(
    readonly chat: TokenCounter,
    readonly embeddings: TokenCounter,
  ) {}

  /** Loads both rank tables now instead of on the first request (called from main.ts). */
  preload(): void {
    this.chat.preload();
    this.embeddings.preload();
  }
}
