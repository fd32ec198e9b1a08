import { ApiError, Clock } from '@app/common';
import { AppConfig } from '@app/config';
import { gcra, MemoryRateLimiter, WINDOW_MS } from './rate-limiter';
import { RateLimitEvents, RateLimitRejection } from './rate-limit-events';
import { LimitSubject, RateLimitService } from './rate-limit.service';

class TestClock extends Clock {
  t = 1_800_000_000_000;
  override now(): number {
    return this.t;
  }
}

const subject = (over: Partial<LimitSubject> = {}): LimitSubject => ({
  teamId: 'team-1',
  apiKeyId: 'key-1',
  keyRpm: null,
  keyTpm: null,
  teamRpm: null,
  teamTpm: null,
  ...over,
});

describe('gcra', () => {
  it('admits `limit` units at once, then one more per WINDOW/limit', () => {
    let tats = [0];
    const now = 1_000_000;
    let admitted = 0;
    for (let i = 0; i < 15; i++) {
      const r = gcra(tats, [{ key: 'k', limit: 10, cost: 1 }], now);
      if (r.allowed) admitted++;
      tats = r.tats;
    }
    expect(admitted).toBe(10);
    const refused = gcra(tats, [{ key: 'k', limit: 10, cost: 1 }], now);
    expect(refused.allowed).toBe(false);
    expect(refused.buckets[0]).toEqual({ remaining: 0, resetMs: WINDOW_MS, retryMs: WINDOW_MS / 10 });
    expect(gcra(tats, [{ key: 'k', limit: 10, cost: 1 }], now + WINDOW_MS / 10).allowed).toBe(true);
  });

  it('is all-or-nothing across buckets', () => {
    const r = gcra(
      [0, 0],
      [
        { key: 'a', limit: 100, cost: 1 },
        { key: 'b', limit: 10, cost: 11 },
      ],
      5000,
    );
    expect(r.allowed).toBe(false);
    expect(r.tats).toEqual([5000, 5000]);
    expect(r.buckets[0].retryMs).toBe(0);
    expect(r.buckets[1].retryMs).toBe(WINDOW_MS / 10);
  });
});

describe('RateLimitService (in-process limiter)', () => {
  const make = (env: Record<string, string> = {}) => {
    const clock = new TestClock();
    const events = new RateLimitEvents();
    const seen: RateLimitRejection[] = [];
    events.onRejected((e) => seen.push(e));
    const svc = new RateLimitService(new MemoryRateLimiter(), clock, AppConfig.fromEnv(env), events);
    return { svc, clock, events, seen };
  };

  it('no limits anywhere: no headers, nothing counted', async () => {
    const { svc } = make();
    for (let i = 0; i < 1000; i++) expect((await svc.admit(subject(), 100)).headers).toEqual({});
  });

  it('the env default applies when the key sets none; the key value wins over it', async () => {
    const { svc } = make({ DEFAULT_KEY_RPM_LIMIT: '2' });
    expect((await svc.admit(subject(), 0)).headers['x-ratelimit-limit-requests']).toBe('2');
    await svc.admit(subject(), 0);
    await expect(svc.admit(subject(), 0)).rejects.toMatchObject({ status: 429 });
    expect((await svc.admit(subject({ apiKeyId: 'key-2', keyRpm: 5 }), 0)).headers['x-ratelimit-limit-requests']).toBe(
      '5',
    );
  });

  it('429: OpenAI type "requests", Retry-After, x-ratelimit headers; the event names the limit', async () => {
    const { svc, seen, events } = make();
    const s = subject({ keyRpm: 3 });
    const remaining = [];
    for (let i = 0; i < 3; i++) remaining.push((await svc.admit(s, 0)).headers['x-ratelimit-remaining-requests']);
    expect(remaining).toEqual(['2', '1', '0']);
    const err = (await svc.admit(s, 0).catch((e: unknown) => e)) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 429, type: 'requests', code: 'rate_limit_exceeded', param: null });
    expect(err.message).toBe(
      'Rate limit reached for API key key-1 on requests per min (RPM): Limit 3, Remaining 0, Requested 1. Please try again in 20s.',
    );
    expect(err.headers).toEqual({
      'retry-after': '20',
      'x-ratelimit-limit-requests': '3',
      'x-ratelimit-remaining-requests': '0',
      'x-ratelimit-reset-requests': '60s',
    });
    expect(seen).toEqual([{ scope: 'key', limit: 'requests', teamId: 'team-1', apiKeyId: 'key-1' }]);
    expect(events.counts()).toEqual({ requests: 1, tokens: 0 });
  });

  it('a second metered step of the same request is not counted as a request', async () => {
    const { svc } = make();
    const s = subject({ keyRpm: 1 });
    await svc.admit(s, 0, true);
    await expect(svc.admit(s, 0, false)).resolves.toBeDefined();
    await expect(svc.admit(s, 0, true)).rejects.toMatchObject({ status: 429 });
  });

  it('tokens: the estimate at admission, corrected at settle (both ways)', async () => {
    const { svc, clock } = make();
    const s = subject({ keyTpm: 100, teamTpm: 1000 });
    const a = await svc.admit(s, 30);
    expect(a.headers['x-ratelimit-remaining-tokens']).toBe('70');
    await svc.settleTokens(a.ticket, 90); // 60 more than estimated
    const b = await svc.admit(s, 0);
    expect(b.headers['x-ratelimit-remaining-tokens']).toBe('10');
    const err = (await svc.admit(s, 20).catch((e: unknown) => e)) as ApiError;
    expect(err).toMatchObject({ status: 429, type: 'tokens' });
    expect(err.message).toContain('on tokens per min (TPM): Limit 100, Remaining 10, Requested 20');
    // a request that used fewer tokens than estimated gives the rest back
    clock.t += WINDOW_MS;
    const c = await svc.admit(s, 80);
    await svc.settleTokens(c.ticket, 10);
    expect((await svc.admit(s, 0)).headers['x-ratelimit-remaining-tokens']).toBe('90');
  });

  it('team limits count every key of the team; the tighter bucket is reported', async () => {
    const { svc, seen } = make();
    await svc.admit(subject({ teamRpm: 2, keyRpm: 10 }), 0);
    const h = (await svc.admit(subject({ apiKeyId: 'key-2', teamRpm: 2, keyRpm: 10 }), 0)).headers;
    expect(h['x-ratelimit-limit-requests']).toBe('2');
    expect(h['x-ratelimit-remaining-requests']).toBe('0');
    await expect(svc.admit(subject({ apiKeyId: 'key-3', teamRpm: 2 }), 0)).rejects.toMatchObject({
      status: 429,
      message: expect.stringContaining('for team team-1'),
    });
    expect(seen.map((e) => e.scope)).toEqual(['team']);
  });

  it('a store that cannot answer admits (fail open) without headers', async () => {
    const clock = new TestClock();
    const down = { consume: () => Promise.resolve(null), adjust: () => Promise.resolve() };
    const svc = new RateLimitService(
      down as unknown as MemoryRateLimiter,
      clock,
      AppConfig.fromEnv({}),
      new RateLimitEvents(),
    );
    expect((await svc.admit(subject({ keyRpm: 1 }), 5)).headers).toEqual({});
  });
});
