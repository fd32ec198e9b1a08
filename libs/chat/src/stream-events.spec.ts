import { pullFrom } from './stream-events';

describe('pullFrom (push callback → async iterable)', () => {
  it('yields the emitted items in order, then the finishing items; emit waits for the consumer', async () => {
    const log: string[] = [];
    const it = pullFrom<string, number>(
      async (emit) => {
        for (const x of ['a', 'b', 'c']) {
          await emit(x);
          log.push(`taken ${x}`);
        }
        return 3;
      },
      (n) => [`done ${n}`],
    );
    const seen: string[] = [];
    for await (const x of it) {
      log.push(`write ${x}`);
      await new Promise((r) => setTimeout(r, 2));
      seen.push(x);
    }
    expect(seen).toEqual(['a', 'b', 'c', 'done 3']);
    // every item is written before the producer goes on to the next one
    expect(log).toEqual(['write a', 'taken a', 'write b', 'taken b', 'write c', 'taken c', 'write done 3']);
  });

  it('throws the producer error after the items emitted before it', async () => {
    const seen: string[] = [];
    const run = async () => {
      for await (const x of pullFrom<string, void>(
        async (emit) => {
          await emit('a');
          throw new Error('upstream failed');
        },
        () => ['never'],
      ))
        seen.push(x);
    };
    await expect(run()).rejects.toThrow('upstream failed');
    expect(seen).toEqual(['a']);
  });

  it('an error before any item is thrown by the first next()', async () => {
    const it = pullFrom<string, void>(() => Promise.reject(new Error('402')), () => []);
    await expect(it.next()).rejects.toThrow('402');
  });

  it('a consumer that stops early releases the producer', async () => {
    let finished = false;
    const it = pullFrom<number, void>(
      async (emit) => {
        for (let i = 0; i < 5; i++) await emit(i);
        finished = true;
      },
      () => [],
    );
    for await (const x of it) if (x === 1) break;
    await new Promise((r) => setTimeout(r, 5));
    expect(finished).toBe(true);
  });
});
