/**
 * Type shims for js-tiktoken's per-encoding rank files.
 *
 * The package declares these entry points only through its `exports` map, which the repository's
 * `moduleResolution: node10` does not read, so TypeScript cannot find their bundled `.d.ts`.
 * Node's runtime `require` does read `exports` and loads `dist/ranks/<name>.cjs`.
 * The shape below is copied from js-tiktoken 1.0.21 (`TiktokenBPE`).
 */
declare module 'js-tiktoken/ranks/o200k_base' {
  const ranks: { pat_str: string; special_tokens: Record<string, number>; bpe_ranks: string };
  export default ranks;
}

declare module 'js-tiktoken/ranks/cl100k_base' {
  const ranks: { pat_str: string; special_tokens: Record<string, number>; bpe_ranks: string };
  export default ranks;
}
