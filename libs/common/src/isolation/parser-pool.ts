import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { Worker } from 'node:worker_threads';
import { AppConfig } from '@app/config';
import { ParseLimitError, ParserTaskError } from './parse-limit';
import { workerEntry } from './worker-entry';

/**
 * A function run in a parser worker: `module` is the absolute path of the module without its
 * extension (`join(__dirname, 'name')`), so it resolves to the compiled .js in the built app and to
 * the .ts source when running from sources; `fn` is the exported function.
 */
export interface ParserTask {
  module: string;
  fn: string;
}

interface Job {
  id: number;
  task: ParserTask;
  args: unknown[];
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
}

interface Slot {
  worker: Worker;
  job: Job | null;
  timer: NodeJS.Timeout | null;
  /** set once the slot is retired (killed, crashed or shut down); its events are ignored from then on */
  dead: boolean;
}

interface WorkerReply {
  id: number;
  /** the task's module is loaded (the first task of a worker loads the parsers): its wall time starts */
  loaded?: boolean;
  ok?: boolean;
  value?: unknown;
  /** the worker's V8 heap (committed) after the task */
  heapBytes?: number;
  error?: { name: string; message: string; code?: string; reason?: string; retryable?: boolean };
}

/**
 * A worker whose heap a task has grown past this is retired once the task is done. V8 keeps a heap
 * it has grown (a 10 MB PDF takes the heap to about 150 MB, though far less of it is live) and a
 * worker lives on between documents, so without this the process would carry the largest
 * document's heap while the main thread stores that document's chunks and vectors. A fresh worker
 * (≈ 30 MB) costs its parsers' load time, paid only after large documents.
 */
const RETIRE_HEAP_BYTES = 128 * 1024 * 1024;

/**
 * Runs parsers of untrusted documents off the main event loop (and other CPU-heavy work on input:
 * the offline embedder on a large batch), in a small pool of worker threads
 * (PARSER_WORKERS). Each worker has a V8 heap limit (PARSER_MEMORY_MB, `resourceLimits`) and each
 * task a wall-time limit (PARSER_TIMEOUT_MS): a worker that runs out of memory dies alone, one that
 * runs out of time is terminated, and the task fails with ParseLimitError; the pool starts a fresh
 * worker for the next task. Tasks wait in a FIFO queue while every worker is busy. Memory outside
 * the V8 heap (ArrayBuffers) is not covered by `resourceLimits`, which is why the parsers also bound
 * decompression while they stream it.
 */
@Injectable()
export class ParserPool implements OnApplicationShutdown {
  private readonly log = new Logger('ParserPool');
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;

  constructor(private readonly config: AppConfig) {}

  run<T>(task: ParserTask, ...args: unknown[]): Promise<T> {
    if (this.closed) return Promise.reject(new Error('The parser pool is shut down.'));
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ id: this.nextId++, task, args, resolve: resolve as (v: unknown) => void, reject });
      this.dispatch();
    });
  }

  /** Workers alive now (idle or busy). */
  get size(): number {
    return this.slots.length;
  }

  async onApplicationShutdown(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(new Error('The parser pool is shut down.'));
    await Promise.all(
      [...this.slots].map((slot) => {
        slot.job?.reject(new Error('The parser pool is shut down.'));
        return this.retire(slot);
      }),
    );
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      let slot = this.slots.find((s) => s.job === null && !s.dead);
      if (!slot) {
        if (this.slots.length >= this.config.parserWorkers) return;
        slot = this.spawn();
      }
      this.start(slot, this.queue.shift()!);
    }
  }

  private start(slot: Slot, job: Job): void {
    slot.job = job;
    slot.worker.ref();
    this.arm(slot);
    slot.worker.postMessage({ id: job.id, module: job.task.module, fn: job.task.fn, args: job.args });
  }

  /** (Re)starts the task's wall-time limit. */
  private arm(slot: Slot): void {
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = setTimeout(() => {
      this.fail(
        slot,
        new ParseLimitError(
          'time',
          `The document's parser ran longer than ${this.config.parserTimeoutMs} ms and was stopped.`,
        ),
      );
    }, this.config.parserTimeoutMs);
  }

  private spawn(): Slot {
    const { entry, options } = workerEntry(__dirname, 'parser-worker');
    const worker = new Worker(entry, {
      ...options,
      resourceLimits: {
        maxOldGenerationSizeMb: this.config.parserMemoryMb,
        // a small young generation: parsers allocate in bursts, and a worker's semi-spaces stay
        // committed (resident) between documents
        maxYoungGenerationSizeMb: Math.min(16, Math.max(8, Math.floor(this.config.parserMemoryMb / 8))),
        stackSizeMb: 4,
      },
      stdout: false,
      stderr: false,
    });
    const slot: Slot = { worker, job: null, timer: null, dead: false };
    this.slots.push(slot);
    worker.unref();
    worker.on('message', (reply: WorkerReply) => this.onReply(slot, reply));
    worker.on('error', (err: Error & { code?: string }) => {
      const outOfMemory = err.code === 'ERR_WORKER_OUT_OF_MEMORY';
      if (!slot.job) this.log.warn(`parser worker failed while idle: ${err.message}`);
      this.fail(
        slot,
        outOfMemory
          ? new ParseLimitError(
              'memory',
              `The document's parser needed more than ${this.config.parserMemoryMb} MB of memory and was stopped.`,
            )
          : new ParseLimitError('crash', `The document's parser crashed: ${err.message}`),
      );
    });
    worker.on('exit', (code) => {
      if (slot.dead) return;
      this.fail(slot, new ParseLimitError('crash', `The document's parser exited (code ${code}).`));
    });
    return slot;
  }

  private onReply(slot: Slot, reply: WorkerReply): void {
    const job = slot.job;
    if (slot.dead || !job || reply.id !== job.id) return;
    if (reply.loaded) {
      // loading the parsers (once per worker) does not count against the document's wall time
      this.arm(slot);
      return;
    }
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = null;
    slot.job = null;
    slot.worker.unref();
    if ((reply.heapBytes ?? 0) > RETIRE_HEAP_BYTES) void this.retire(slot);
    if (reply.ok) job.resolve(reply.value);
    else job.reject(replyError(reply.error!));
    this.dispatch();
  }

  /** The slot's worker is done for: its task (if any) fails with `err`, the worker is terminated. */
  private fail(slot: Slot, err: ParseLimitError): void {
    if (slot.dead) return;
    const job = slot.job;
    slot.job = null;
    if (job) {
      this.log.warn(`parser worker stopped (${err.reason}): ${err.message}`);
      job.reject(err);
    }
    void this.retire(slot);
    this.dispatch();
  }

  private async retire(slot: Slot): Promise<void> {
    slot.dead = true;
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = null;
    const i = this.slots.indexOf(slot);
    if (i >= 0) this.slots.splice(i, 1);
    await slot.worker.terminate().catch(() => undefined);
  }
}

function replyError(e: NonNullable<WorkerReply['error']>): Error {
  if (e.name === 'ParseLimitError')
    return new ParseLimitError((e.reason as ParseLimitError['reason'] | undefined) ?? 'crash', e.message);
  if (e.name === 'StackOverflow')
    return new ParseLimitError('stack', 'The document is nested too deeply for its parser (call stack exhausted).');
  return new ParserTaskError(e.name, e.message, e.code, e.retryable === true);
}
