/**
 * Entry of a parser worker thread. It runs one task at a time: `require(module)[fn](...args)`, and
 * posts back that the module is loaded (and its optional `ready()` resolved), then the result or
 * the error (name, message, code). Byte arguments arrive as Uint8Array
 * (structured clone drops the Buffer class) and are handed to the task as Buffers again. A result
 * carries the size of the worker's heap (`heapBytes`), which the pool uses to retire a worker that
 * a large document has grown.
 */
import { getHeapStatistics } from 'node:v8';
import { parentPort } from 'node:worker_threads';

interface TaskMessage {
  id: number;
  module: string;
  fn: string;
  args: unknown[];
}

const asBuffer = (v: unknown): unknown =>
  v instanceof Uint8Array && !Buffer.isBuffer(v) ? Buffer.from(v.buffer, v.byteOffset, v.byteLength) : v;

/**
 * Typed arrays of a result (the value itself or its direct properties) that own their whole buffer
 * move to the main thread instead of being copied (vectors of a batch: megabytes).
 */
function transferables(value: unknown): ArrayBuffer[] {
  const out: ArrayBuffer[] = [];
  const take = (v: unknown) => {
    if (!ArrayBuffer.isView(v) || Buffer.isBuffer(v) || !(v.buffer instanceof ArrayBuffer)) return;
    if (v.byteOffset === 0 && v.byteLength === v.buffer.byteLength && !out.includes(v.buffer)) out.push(v.buffer);
  };
  take(value);
  if (value && typeof value === 'object' && !ArrayBuffer.isView(value)) for (const v of Object.values(value)) take(v);
  return out;
}

parentPort?.on('message', (msg: TaskMessage) => {
  void (async () => {
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const mod = require(msg.module) as Record<string, (...args: unknown[]) => unknown>;
      const fn = mod[msg.fn];
      if (typeof fn !== 'function') throw new Error(`${msg.module} exports no function ${msg.fn}`);
      // a module may load its libraries once per worker (`ready`), before any document's wall time starts
      if (typeof mod.ready === 'function') await mod.ready();
      // the task's code is loaded: its wall time starts now
      parentPort!.postMessage({ id: msg.id, loaded: true });
      const value = await fn(...msg.args.map(asBuffer));
      parentPort!.postMessage(
        { id: msg.id, ok: true, value, heapBytes: getHeapStatistics().total_heap_size },
        transferables(value),
      );
    } catch (err) {
      const e = (err instanceof Error ? err : new Error(String(err))) as Error & {
        code?: unknown;
        reason?: unknown;
        retryable?: unknown;
      };
      const stackOverflow = e instanceof RangeError && /call stack/i.test(e.message);
      parentPort!.postMessage({
        id: msg.id,
        ok: false,
        heapBytes: getHeapStatistics().total_heap_size,
        error: {
          name: stackOverflow ? 'StackOverflow' : e.name,
          message: e.message,
          code: typeof e.code === 'string' ? e.code : undefined,
          reason: typeof e.reason === 'string' ? e.reason : undefined,
          retryable: e.retryable === true,
        },
      });
    }
  })();
});
