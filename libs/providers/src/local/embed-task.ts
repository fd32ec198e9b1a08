/**
 * The offline embedder's work on a large batch, run in a worker of the ParserPool so that hashing
 * and token counting of megabytes of text (a document's chunks) never hold the event loop. Only
 * relative imports and libraries, so a worker loads no more than the embedder and the tokenizer.
 */
import { TokenCounter, TokenEncodingName } from '../tokenizer/token-counter';
import { LexicalEmbedder } from './lexical-embedder';

const embedder = new LexicalEmbedder();
const counters = new Map<TokenEncodingName, TokenCounter>();

/** Vectors of `texts` back to back in one array (one copy to the main thread), and their tokens. */
export function embedTexts(
  texts: string[],
  dimensions: number,
  encoding: TokenEncodingName,
): { vectors: Float32Array; tokens: number } {
  let counter = counters.get(encoding);
  if (!counter) counters.set(encoding, (counter = new TokenCounter(encoding)));
  const vectors = new Float32Array(texts.length * dimensions);
  let tokens = 0;
  texts.forEach((text, i) => {
    vectors.set(embedder.embed(text, dimensions), i * dimensions);
    tokens += counter.count(text);
  });
  return { vectors, tokens };
}
