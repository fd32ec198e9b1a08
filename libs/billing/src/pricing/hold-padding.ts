/**
 * The padding rule for holds: tokens to hold for `counted` tokens counted by the gateway. Where the
 * gateway's tokenizer is the provider's (`exact`: OpenAI models, the local models, the embedding
 * tokenizer) 10 % + 32 covers framing. Elsewhere (Anthropic, Gemini, DeepSeek, OpenAI-compatible
 * servers) other tokenizers count Cyrillic, CJK and code higher: the larger of 1.5 × the count and
 * one token per non-ASCII character plus one per three ASCII characters of `text`, plus 32. The
 * charge is always the provider's report; this only sizes the hold.
 */
export function holdTokens(counted: number, opts: { exact: boolean; text?: string } = { exact: true }): number {
  if (opts.exact) return Math.ceil(counted * 1.1) + 32;
  const text = opts.text ?? '';
  let nonAscii = 0;
  for (const ch of text) if (ch.codePointAt(0)! > 0x7f) nonAscii++;
  return Math.max(Math.ceil(counted * 1.5), nonAscii + Math.ceil((text.length - nonAscii) / 3)) + 32;
}
