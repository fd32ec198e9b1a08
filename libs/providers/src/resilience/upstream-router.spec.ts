import { ApiError, MetricsService, Random, Sleeper } from '@app/common';
import { AppConfig } from '@app/config';
import { ModelEntry } from '../catalog/model-catalog';
import { ChatProvider } from '../chat-provider';
import { ProviderConnectionError } from '../http/provider-http.client';
import { providerErrorFor } from '../http/upstream-errors';
import { ChatDeployment, ProviderRegistry } from '../provider-registry';
import { DeploymentCooldowns } from './deployment-cooldowns';
import { ResilienceEvent, ResilienceEvents } from './resilience-events';
import { UpstreamRouter } from './upstream-router';
import { ENV_PROVIDERS } from '../provider-definitions';

/** The same draw every time: jitter at half its range, deployment picks by the midpoint. */
class FixedRandom extends Random {
  constructor(private readonly value: number) {
    super();
  }
  override next(): number {
    return this.value;
  }
}

class RecordingSleeper extends Sleeper {
  delays: number[] = [];
  override async sleep(ms: number): Promise<void> {
    this.delays.push(ms);
  }
}

class MemoryCooldowns {
  readonly cooldownMs = 30_000;
  readonly cold = new Set<string>();
  async cooling(model: string, ids: readonly string[]): Promise<Set<string>> {
    return new Set(ids.filter((id) => this.cold.has(`${model}:${id}`)));
  }
  async coolDown(model: string, id: string): Promise<void> {
    this.cold.add(`${model}:${id}`);
  }
}

const model = (key: string): ModelEntry => ({ key, provider: 'openai' }) as ModelEntry;
const http = (status: number, headers: Record<string, string> = {}) =>
  providerErrorFor({ status, message: `HTTP ${status}`, headers });
const provider = {} as ChatProvider;

describe('UpstreamRouter', () => {
  const config = AppConfig.load(ENV_PROVIDERS, {
    RETRY_BASE_DELAY_MS: '100',
    RETRY_MAX_DELAY_MS: '1000',
    RETRY_AFTER_MAX_MS: '5000',
  });
  let deployments: Record<string, ChatDeployment[] | Error>;
  let retries: number;
  let sleeper: RecordingSleeper;
  let cooldowns: MemoryCooldowns;
  let events: ResilienceEvent[];
  let router: UpstreamRouter;
  let metrics: MetricsService;

  beforeEach(() => {
    deployments = {};
    retries = 2;
    sleeper = new RecordingSleeper();
    cooldowns = new MemoryCooldowns();
    events = [];
    const registry = {
      chatDeployments: (m: ModelEntry) => {
        const d = deployments[m.key] ?? [{ id: 'default', weight: 1, provider }];
        if (d instanceof Error) throw d;
        return d;
      },
      maxRetries: () => retries,
    } as unknown as ProviderRegistry;
    const bus = new ResilienceEvents();
    bus.subscribe((e) => events.push(e));
    metrics = new MetricsService();
    router = new UpstreamRouter(
      registry,
      cooldowns as unknown as DeploymentCooldowns,
      sleeper,
      bus,
      config,
      metrics,
      new FixedRandom(0.5),
    );
  });

  /** An attempt function that fails with the scripted errors in order, then answers with the model key. */
  const script = (...errors: Error[]) => {
    const calls: string[] = [];
    const fn = async (c: { model: ModelEntry }) => {
      calls.push(c.model.key);
      const e = errors.shift();
      if (e) throw e;
      return `served by ${c.model.key}`;
    };
    return { calls, fn };
  };

  it('2 × 500 then success: one answer after two backoff sleeps', async () => {
    const s = script(http(500), http(500));
    const out = await router.run([{ model: model('m') }], s.fn);
    expect(out.result).toBe('served by m');
    expect(s.calls).toEqual(['m', 'm', 'm']);
    expect(out).toMatchObject({ attempts: 3, retries: 2, fallbacks: 0 });
    expect(sleeper.delays).toEqual([50, 100]); // 0.5 × min(1000, 100 × 2^k)
    expect(events.filter((e) => e.type === 'retry')).toHaveLength(2);
  });

  it('gives up after <PROVIDER>_MAX_RETRIES and throws the last error', async () => {
    retries = 1;
    const s = script(http(503), http(502), http(500));
    await expect(router.run([{ model: model('m') }], s.fn)).rejects.toMatchObject({ upstreamStatus: 502 });
    expect(s.calls).toHaveLength(2);
  });

  it('Retry-After is honoured up to the cap', async () => {
    const s = script(http(429, { 'retry-after': '2' }), http(429, { 'retry-after': '120' }));
    await router.run([{ model: model('m') }], s.fn);
    expect(sleeper.delays).toEqual([2_000, 5_000]);
  });

  it('a 400 is thrown at once, never retried or handed to a fallback', async () => {
    const s = script(http(400));
    await expect(router.run([{ model: model('a') }, { model: model('b') }], s.fn)).rejects.toMatchObject({
      upstreamStatus: 400,
    });
    expect(s.calls).toEqual(['a']);
    expect(sleeper.delays).toEqual([]);
  });

  it('nothing is retried once committed (bytes went to the client)', async () => {
    const s = script(new ProviderConnectionError('upstream', 'Upstream stream broke'));
    await expect(
      router.run([{ model: model('a') }, { model: model('b') }], s.fn, { committed: () => true }),
    ).rejects.toBeInstanceOf(ProviderConnectionError);
    expect(s.calls).toEqual(['a']);
  });

  it('a retryable failure after the retries goes to the fallback, which serves', async () => {
    retries = 1;
    const s = script(http(500), http(503));
    const progress = { candidate: { model: model('a') }, deployment: '', attempts: 0, retries: 0, fallbacks: 0 };
    const out = await router.run([{ model: model('a') }, { model: model('b') }], s.fn, { progress });
    expect(out.result).toBe('served by b');
    expect(s.calls).toEqual(['a', 'a', 'b']);
    expect(progress).toMatchObject({ candidate: { model: { key: 'b' } }, attempts: 3, retries: 1, fallbacks: 1 });
    expect(events).toContainEqual(expect.objectContaining({ type: 'fallback', from: 'a', to: 'b', reason: 'failed' }));
  });

  it('an unavailable candidate (503, no credentials) is skipped for the next', async () => {
    deployments.a = ApiError.unavailable('no key', 'model_unavailable');
    const s = script();
    const out = await router.run([{ model: model('a') }, { model: model('b') }], s.fn);
    expect(out.result).toBe('served by b');
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'fallback', from: 'a', to: 'b', reason: 'unavailable' }),
    );
  });

  it('a failing deployment cools down and the retry goes to the other one; later calls skip it', async () => {
    const d1 = { id: 'one', weight: 1000, provider: { name: 'one' } as unknown as ChatProvider };
    const d2 = { id: 'two', weight: 1, provider: { name: 'two' } as unknown as ChatProvider };
    deployments.m = [d1, d2];
    const used: string[] = [];
    let failOne = true;
    const fn = async (_c: unknown, p: ChatProvider) => {
      const name = (p as unknown as { name: string }).name;
      used.push(name);
      if (name === 'one' && failOne) throw http(503);
      return name;
    };
    expect((await router.run([{ model: model('m') }], fn)).result).toBe('two');
    expect(used).toEqual(['one', 'two']);
    expect(cooldowns.cold.has('m:one')).toBe(true);
    failOne = false;
    for (let i = 0; i < 5; i++) expect((await router.run([{ model: model('m') }], fn)).result).toBe('two');
    cooldowns.cold.clear(); // the cooldown expired
    expect((await router.run([{ model: model('m') }], fn)).result).toBe('one');
  });

  it('a deployment whose key is refused cools down and the call moves to another one at once; with one deployment a 401 is final', async () => {
    const d1 = { id: 'bad-key', weight: 1000, provider: { name: 'bad' } as unknown as ChatProvider };
    const d2 = { id: 'good', weight: 1, provider: { name: 'good' } as unknown as ChatProvider };
    deployments.m = [d1, d2];
    const used: string[] = [];
    const fn = async (_c: unknown, p: ChatProvider) => {
      const name = (p as unknown as { name: string }).name;
      used.push(name);
      if (name === 'bad') throw http(401);
      return name;
    };
    expect((await router.run([{ model: model('m') }], fn)).result).toBe('good');
    expect(used).toEqual(['bad', 'good']);
    expect(sleeper.delays).toEqual([]);
    expect(cooldowns.cold.has('m:bad-key')).toBe(true);

    const s = script(http(401));
    await expect(router.run([{ model: model('single') }, { model: model('other') }], s.fn)).rejects.toMatchObject({
      upstreamStatus: 401,
    });
    expect(s.calls).toEqual(['single']);
  });

  it('metrics: one upstream error per failed attempt, one retry per retry, one fallback per move; an abort counts nothing', async () => {
    const value = async (name: string, labels: Record<string, string>): Promise<number> => {
      const m = await metrics.registry.getSingleMetric(name)!.get();
      return m.values
        .filter((v) => Object.entries(labels).every(([k, x]) => v.labels[k] === x))
        .reduce((a, v) => a + v.value, 0);
    };
    retries = 1;
    const s = script(http(500), http(503), http(400));
    await expect(router.run([{ model: model('a') }, { model: model('b') }], s.fn)).rejects.toMatchObject({
      upstreamStatus: 400,
    });
    expect(await value('gateway_upstream_errors_total', { provider: 'openai', model: 'a', kind: 'upstream' })).toBe(2);
    expect(await value('gateway_upstream_errors_total', { model: 'b', kind: 'invalid_request' })).toBe(1);
    expect(await value('gateway_upstream_retries_total', { model: 'a' })).toBe(1);
    expect(await value('gateway_upstream_retries_total', { model: 'b' })).toBe(0);
    expect(await value('gateway_fallbacks_total', { from: 'a', to: 'b' })).toBe(1);

    const ac = new AbortController();
    ac.abort();
    await expect(
      router.run([{ model: model('c') }], script(http(500)).fn, { signal: ac.signal }),
    ).rejects.toMatchObject({ upstreamStatus: 500 });
    expect(await value('gateway_upstream_errors_total', { model: 'c' })).toBe(0);

    await expect(
      router.retry(model('e'), script(http(503), http(503), http(503)).fn.bind(null, { model: model('e') })),
    ).rejects.toMatchObject({ upstreamStatus: 503 });
    expect(await value('gateway_upstream_errors_total', { model: 'e' })).toBe(2);
    expect(await value('gateway_upstream_retries_total', { model: 'e' })).toBe(1);
  });
});
