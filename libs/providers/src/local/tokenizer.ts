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

/** gpt-tokenizer's encoders (maintained, linear-time merging; counts identical to js-tiktoken — see the bench). */
interface GptEncoding {
  encode(text: string, options?: { allowedSpecial?: Set<string>; disallowedSpecial?: Set<string> }): number[];
  decode(tokens: Iterable<number>): string;
}

const LOADERS: Record<TokenEncodingName, () => GptEncoding> = {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  o200k_base: () => require('gpt-tokenizer/cjs/encoding/o200k_base') as GptEncoding,
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  cl100k_base: () => require('gpt-tokenizer/cjs/encoding/cl100k_base') as GptEncoding,
};

/** Special-token text (e.g. "<|endoftext|>") in a prompt is ordinary text to count, never a control token. */
const AS_TEXT = { allowedSpecial: new Set<string>(), disallowedSpecial: new Set<string>() };

export class TokenCounter {
  private enc: GptEncoding | null = null;

  constructor(readonly encoding: TokenEncodingName = 'o200k_base') {
    if (LOADERS[encoding] === undefined) throw new RangeError(`Unknown encoding ${String(encoding)}`);
  }

  /** Loads the rank table now instead of on first use (e.g. at application start). */
  preload(): void {
    this.bpe();
  }

  /** Number of tokens of `text`. */
  count(text: string): number {
    if (text.length === 0) return 0;
    return this.bpe().encode(text, AS_TEXT).length;
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
    return this.bpe().encode(text, AS_TEXT);
  }

  /** Text of the token ids. Throws RangeError on an id that is not in the encoding. */
  decode(tokens: readonly number[]): string {
    if (tokens.length === 0) return '';
    try {
      return this.bpe().decode(tokens);
    } catch (err) {
      throw new RangeError(`Cannot decode: ${(err as Error).message}`);
    }
  }

  /**
   * The longest prefix of `text` that ends on a token boundary and has at most `maxTokens` tokens.
   * Returns `text` itself when it already fits. Never splits a character: a boundary inside a
   * multi-byte character is moved back to the character start.
   */
  truncate(text: string, maxTokens: number): string {
    if (!(maxTokens > 0) || text.length === 0) return '';
    const limit = Math.floor(maxTokens);
    if (limit === 0) return '';
    const ids = this.encode(text);
    if (ids.length <= limit) return text;
    for (let keep = limit; keep > 0; keep--) {
      // a token that ends inside a character decodes to U+FFFD: drop it
      const prefix = this.decode(ids.slice(0, keep)).replace(/\uFFFD+$/, '');
      if (text.startsWith(prefix) && this.count(prefix) <= limit) return prefix;
    }
    return '';
  }

  private bpe(): GptEncoding {
    if (this.enc === null) this.enc = LOADERS[this.encoding]();
    return this.enc;
  }
}
