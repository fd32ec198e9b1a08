import { isMainThread } from 'node:worker_threads';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let collect: (() => void) | null = null;

/**
 * A full garbage collection, in a parser worker thread only (on the main thread it would pause
 * every request). A worker's heap may grow to its limit (PARSER_MEMORY_MB) before V8 collects, so
 * a parser that has just dropped a large structure (a PDF opening of a few hundred pages) asks for
 * the collection itself and the process's memory stays near the parser's live set. The collector
 * is taken the way jest's leak detector takes it: exposed for one new context, then hidden again.
 */
export function releaseWorkerMemory(): void {
  if (isMainThread) return;
  if (!collect) {
    setFlagsFromString('--expose-gc');
    collect = runInNewContext('gc') as () => void;
    setFlagsFromString('--no-expose-gc');
  }
  collect();
}
