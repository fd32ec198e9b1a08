/**
 * The offline embedder's work on a large batch, run in a worker of the ParserPool so that hashing
 * and token counting of megabytes of text (a document's chunks) never hold the event loop. Only
 * relative imports and libraries, so a worker loads no more than the embedder and the tokenizer.
 */
import { TokenCounter, TokenEncodingName } from '../tokenizer/token-counter';
import { LexicalEmbedder } from './lexical-embedder';

const embedder = new LexicalEmbedder();

/** Vectors of `texts` back to back in one array (one copy to the main thread), and their tokens. */
export function embedTexts(
  texts: string[],
  dimensions: number,
  encoding: TokenEncodingName,
): { vectors: Float32Array; tokens: number } {
  // a counter is a handle on the process-wide rank table of its encoding: cheap to make
  const counter = new TokenCounter(encoding);
  const vectors = new Float32Array(texts.length * dimensions);
  let tokens = 0;
  texts.forEach((text, i) => {
    vectors.set(embedder.embed(text, dimensions), i * dimensions);
    tokens += counter.count(text);
  });
  return { vectors, tokens };
}
