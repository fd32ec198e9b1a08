/**
 * An untrusted document went past a parsing limit: a decompression bound, a nesting bound, or its
 * parser was killed for exceeding the memory or wall-time limit of its worker. `reason` says which;
 * `deterministic` is true when the same bytes always trip the same bound (no point in a retry).
 */
export class ParseLimitError extends Error {
  readonly code = 'parse_limit_exceeded';

  constructor(
    readonly reason: 'inflated_size' | 'ratio' | 'entries' | 'nesting' | 'stack' | 'memory' | 'time' | 'crash',
    message: string,
  ) {
    super(message);
    this.name = 'ParseLimitError';
  }

  get deterministic(): boolean {
    return this.reason !== 'memory' && this.reason !== 'time' && this.reason !== 'crash';
  }
}

/** A parser task that failed inside its worker with an ordinary error (its name, message and code travel back). */
export class ParserTaskError extends Error {
  constructor(
    readonly errorName: string,
    message: string,
    readonly code: string | undefined,
    /** the task said the same bytes may succeed later (a limit that load can cause) */
    readonly retryable = false,
  ) {
    super(message);
    this.name = 'ParserTaskError';
  }
}
