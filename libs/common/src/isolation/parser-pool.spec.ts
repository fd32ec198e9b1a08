import { join } from 'node:path';
import { threadId } from 'node:worker_threads';
import { AppConfig } from '@app/config';
import { ParseLimitError, ParserTaskError } from './parse-limit';
import { ParserPool, ParserTask } from './parser-pool';

const TASKS = join(__dirname, '__fixtures__', 'pool-tasks');
const task = (fn: string): ParserTask => ({ module: TASKS, fn });

describe('ParserPool', () => {
  const pools: ParserPool[] = [];
  const pool = (env: Record<string, string> = {}) => {
    const p = new ParserPool(AppConfig.fromEnv(env));
    pools.push(p);
    return p;
  };
  afterAll(async () => {
    await Promise.all(pools.map((p) => p.onApplicationShutdown()));
  });

  it('runs a task in a worker thread; bytes arrive as a Buffer', async () => {
    const r = await pool().run<{ threadId: number; isBuffer: boolean; text: string; n: number }>(
      task('echo'),
      Buffer.from('héllo'),
      { n: 7 },
    );
    expect(r).toEqual({ threadId: expect.any(Number), isBuffer: true, text: 'héllo', n: 7 });
    expect(r.threadId).not.toBe(threadId);
  });

  it('a task past the wall-time limit is stopped (ParseLimitError time) while the event loop keeps running; the next task gets a fresh worker', async () => {
    const p = pool({ PARSER_TIMEOUT_MS: '800', PARSER_WORKERS: '1' });
    const first = await p.run<{ threadId: number }>(task('echo'), Buffer.alloc(0), { n: 1 });
    let ticks = 0;
    const timer = setInterval(() => ticks++, 20);
    const started = Date.now();
    const err = await p.run(task('spin')).catch((e: unknown) => e);
    clearInterval(timer);
    expect(err).toBeInstanceOf(ParseLimitError);
    expect(err).toMatchObject({ reason: 'time', code: 'parse_limit_exceeded', deterministic: false });
    expect(Date.now() - started).toBeGreaterThanOrEqual(800);
    // the main thread was free the whole time (a blocked loop would have ticked ~0 times)
    expect(ticks).toBeGreaterThan(10);
    const next = await p.run<{ threadId: number }>(task('echo'), Buffer.alloc(0), { n: 2 });
    expect(next.threadId).not.toBe(first.threadId);
  });

  it('a task past the heap limit kills only its worker (ParseLimitError memory)', async () => {
    const p = pool({ PARSER_MEMORY_MB: '64', PARSER_TIMEOUT_MS: '60000' });
    const err = await p.run(task('hog')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ParseLimitError);
    expect(err).toMatchObject({ reason: 'memory', deterministic: false });
    expect(await p.run(task('echo'), Buffer.from('ok'), { n: 3 })).toMatchObject({ text: 'ok' });
  });

  it('errors travel back by name, message and code; a stack overflow is a nesting limit; an exiting worker is a crash', async () => {
    const p = pool();
    await expect(p.run(task('fail'))).rejects.toEqual(
      new ParserTaskError('FormatError', 'the format is wrong', 'bad_format'),
    );
    await expect(p.run(task('fail'))).rejects.toMatchObject({ errorName: 'FormatError', code: 'bad_format' });
    const deep = await p.run(task('recurse')).catch((e: unknown) => e);
    expect(deep).toBeInstanceOf(ParseLimitError);
    expect(deep).toMatchObject({ reason: 'stack', deterministic: true });
    await expect(p.run(task('exit'))).rejects.toMatchObject({ reason: 'crash' });
    expect(await p.run(task('echo'), Buffer.from('still'), { n: 4 })).toMatchObject({ text: 'still' });
  });

  it('runs at most PARSER_WORKERS tasks at once; the others wait their turn', async () => {
    const p = pool({ PARSER_WORKERS: '2' });
    const started = Date.now();
    const threads = await Promise.all([1, 2, 3, 4].map(() => p.run<number>(task('slow'), 300)));
    expect(p.size).toBe(2);
    expect(new Set(threads).size).toBe(2);
    // four 300 ms tasks on two workers: two rounds
    expect(Date.now() - started).toBeGreaterThanOrEqual(600);
  });

  it('a worker task can collect its garbage at once (releaseWorkerMemory); the collector stays hidden', async () => {
    const r = await pool().run<{ before: number; left: number; released: number; hidden: boolean }>(task('garbage'));
    const mb = (n: number) => n / 1024 / 1024;
    expect(mb(r.left - r.before)).toBeGreaterThan(40); // the dropped arrays still fill the heap
    expect(mb(r.released - r.before)).toBeLessThan(10);
    expect(r.hidden).toBe(true);
  });

  it('a worker whose heap a task grew past 128 MB is retired after it; the next task gets a fresh one', async () => {
    const p = pool({ PARSER_WORKERS: '1' });
    const small = await p.run<number>(task('thread'));
    expect(await p.run<number>(task('thread'))).toBe(small); // small tasks keep their worker
    const big = await p.run<number>(task('grow'));
    expect(big).toBe(small);
    await new Promise((r) => setTimeout(r, 50));
    expect(p.size).toBe(0);
    expect(await p.run<number>(task('thread'))).not.toBe(big);
  });

  it('a task error says whether the same input may succeed later (retryable)', async () => {
    const p = pool();
    await expect(p.run(task('limited'))).rejects.toMatchObject({ errorName: 'ExtractionError', retryable: true });
    await expect(p.run(task('fail'))).rejects.toMatchObject({ errorName: 'FormatError', retryable: false });
  });
});
