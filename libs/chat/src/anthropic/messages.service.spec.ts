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
    const out: (string | undefined)[] = [];
    for await (const e of withPings(slow([120, 5, 130]), 40)) out.push(e.event);
    expect(out[0]).toBe('content_block_delta');
    expect(out.filter((e) => e === 'content_block_delta')).toHaveLength(3);
    // the 130 ms gap after the second event holds pings; the 120 ms wait for the first does not
    const second = out.indexOf('content_block_delta', 1);
    expect(out.slice(second + 1, out.length - 1).every((e) => e === 'ping')).toBe(true);
    expect(out.slice(second + 1).filter((e) => e === 'ping').length).toBeGreaterThanOrEqual(2);
    expect(out.slice(0, second).filter((e) => e === 'ping')).toHaveLength(0);
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
