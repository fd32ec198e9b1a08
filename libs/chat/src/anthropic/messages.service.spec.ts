import type { SseEvent } from '../event-stream';
import { withPings } from './messages.service';

async function* slow(gapsMs: number[]): AsyncGenerator<SseEvent, void, undefined> {
  for (const [i, gap] of gapsMs.entries()) {
    await new Promise((r) => setTimeout(r, gap));
    yield { event: 'content_block_delta', data: { i } };
  }
}

describe('withPings', () => {
  it('pings during long gaps once the stream started, never before the first event', async () => {
    // fake timers: the gaps and the ping interval are exact, whatever the machine's load
    jest.useFakeTimers();
    try {
      const out: (string | undefined)[] = [];
      const consumed = (async () => {
        for await (const e of withPings(slow([120, 5, 130]), 40)) out.push(e.event);
      })();
      await jest.advanceTimersByTimeAsync(300);
      await consumed;
      // no ping in the 120 ms wait for the first event; none in the 5 ms gap; three in the 130 ms gap
      expect(out).toEqual([
        'content_block_delta',
        'content_block_delta',
        'ping',
        'ping',
        'ping',
        'content_block_delta',
      ]);
    } finally {
      jest.useRealTimers();
    }
  });

  it('stopping early stops the source; an error of the source propagates', async () => {
    let finished = false;
    async function* source(): AsyncGenerator<SseEvent, void, undefined> {
      try {
        yield { event: 'a', data: {} };
        yield { event: 'b', data: {} };
      } finally {
        finished = true;
      }
    }
    for await (const e of withPings(source(), 1000)) if (e.event === 'a') break;
    expect(finished).toBe(true);

    async function* failing(): AsyncGenerator<SseEvent, void, undefined> {
      yield { event: 'a', data: {} };
      throw new Error('boom');
    }
    const seen: unknown[] = [];
    await expect(
      (async () => {
        for await (const e of withPings(failing(), 1000)) seen.push(e.event);
      })(),
    ).rejects.toThrow('boom');
    expect(seen).toEqual(['a']);
  });
});
