/**
 * Token counting with OpenAI's BPE encodings (rank data from js-tiktoken).
 *
 * Plain TypeScript (no Nest decorators) so it can be constructed anywhere; a Nest provider can
 * wrap it. Rank tables are parsed lazily, once per encoding per process, and shared by every
 * `TokenCounter` instance (o200k_base takes a few hundred ms and ~100 MB the first time).
 * Only the two rank files below are imported, never js-tiktoken's all-encodings entry point.
 *
 * Encoding itself runs in ./bpe (same output as js-tiktoken, without its quadratic worst case).
 * Special-token text such as `<|endoftext|>` is counted as ordinary text.
 */
import cl100kBase from 'js-tiktoken/ranks/cl100k_base';
import o200kBase from 'js-tiktoken/ranks/o200k_base';
import { BytePairEncoder, trimIncompleteUtf8, type BpeRankData } from './bpe';

/** `o200k_base`: GPT-4o-family chat models (default). `cl100k_base`: text-embedding-3-* models. */
export type TokenEncodingName = 'o200k_base' | 'cl100k_base';

/** A chat message as counted by {@link TokenCounter.countChat}. */
export interface CountableChatMessage {
  role: string;
  content: string | null;
  name?: string;
}

/** Tokens added per message by the chat format (OpenAI cookbook value for current models). */
export const TOKENS_PER_MESSAGE = 3;
/** Tokens added once for priming the assistant reply (`<|start|>assistant<|message|>`). */
export const TOKENS_REPLY_PRIMING = 3;
/** Extra tokens when a message carries `name`. */
export const TOKENS_PER_NAME = 1;

const RANK_DATA: Record<TokenEncodingName, BpeRankData> = {
  o200k_base: o200kBase,
  cl100k_base: cl100kBase,
};

const encoders = new Map<TokenEncodingName, BytePairEncoder>();

function encoderFor(encoding: TokenEncodingName): BytePairEncoder {
  let encoder = encoders.get(encoding);
  if (encoder === undefined) {
    const data = RANK_DATA[encoding];
    if (data === undefined) throw new RangeError(`Unknown encoding ${String(encoding)}`);
    encoder = new BytePairEncoder(data);
    encoders.set(encoding, encoder);
  }
  return encoder;
}

export class TokenCounter {
  private encoder: BytePairEncoder | null = null;

  constructor(readonly encoding: TokenEncodingName = 'o200k_base') {
    if (RANK_DATA[encoding] === undefined) throw new RangeError(`Unknown encoding ${String(encoding)}`);
  }

  /** Parses the rank table now instead of on first use (e.g. at application start). */
  preload(): void {
    this.bpe();
  }

  /** Number of tokens of `text`. */
  count(text: string): number {
    if (text.length === 0) return 0;
    return this.bpe().count(text);
  }

  /**
   * Prompt tokens of a chat request, OpenAI-style: for every message 3 tokens + the tokens of its
   * role and content (+ 1 + the name's tokens when `name` is set), then 3 tokens of reply priming.
   * An empty list still costs the 3 priming tokens.
   */
  countChat(messages: readonly CountableChatMessage[]): number {
    let total = TOKENS_REPLY_PRIMING;
    for (const message of messages) {
      total += TOKENS_PER_MESSAGE + this.count(message.role);
      if (message.content !== null) total += this.count(message.content);
      if (message.name !== undefined) total += TOKENS_PER_NAME + this.count(message.name);
    }
    return total;
  }

  /** Token ids of `text`. */
  encode(text: string): number[] {
    if (text.length === 0) return [];
    return this.bpe().encode(text);
  }

  /** Text of the token ids. Throws RangeError on an id that is not in the encoding. */
  decode(tokens: readonly number[]): string {
    if (tokens.length === 0) return '';
    return this.bpe().decode(tokens);
  }

  /**
   * The longest prefix of `text` that ends on a token boundary and has at most `maxTokens` tokens.
   * Returns `text` itself when it already fits. Never splits a character: a token boundary inside
   * a multi-byte UTF-8 character is moved back to the character start. Only the first
   * `maxTokens + 1` tokens are computed, so truncating a huge text is cheap.
   */
  truncate(text: string, maxTokens: number): string {
    if (!(maxTokens > 0) || text.length === 0) return '';
    const encoder = this.bpe();
    const limit = Math.floor(maxTokens);
    if (limit === 0) return '';
    const head = encoder.encodeUpTo(text, limit);
    if (head.length <= limit) return text;
    for (let keep = limit; keep > 0; keep--) {
      const prefix = trimIncompleteUtf8(encoder.decodeBytes(head.slice(0, keep))).toString('utf8');
      // Re-encoding a prefix can (rarely) merge differently; make sure the promise holds.
      if (encoder.count(prefix) <= limit) return prefix;
    }
    return '';
  }

  private bpe(): BytePairEncoder {
    if (this.encoder === null) this.encoder = encoderFor(this.encoding);
    return this.encoder;
  }
}
