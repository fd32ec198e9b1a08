import { Histogram, Registry } from 'prom-client';
import { SeriesHistogram } from './series-histogram';

describe('SeriesHistogram', () => {
  it('exposes exactly what a prom-client Histogram exposes for the same observations', async () => {
    const buckets = [0.005, 0.01, 0.1, 1];
    const ours = new Registry();
    const theirs = new Registry();
    const h = new SeriesHistogram('x_seconds', 'help text', buckets, ours);
    const p = new Histogram({
      name: 'x_seconds',
      help: 'help text',
      labelNames: ['method', 'route'],
      buckets,
      registers: [theirs],
    });
    const a = h.series({ method: 'POST', route: '/v1/chat/completions' });
    const b = h.series({ method: 'GET', route: '/v1/models' });
    h.series({ method: 'GET', route: '/never' }); // never observed: not exposed
    for (const [s, labels, v] of [
      [a, { method: 'POST', route: '/v1/chat/completions' }, 0.003],
      [a, { method: 'POST', route: '/v1/chat/completions' }, 0.01], // on a bound: that bucket
      [a, { method: 'POST', route: '/v1/chat/completions' }, 5], // above every bound: +Inf only
      [b, { method: 'GET', route: '/v1/models' }, 0.05],
    ] as const) {
      s.observe(v);
      p.observe(labels, v);
    }
    expect(await ours.metrics()).toBe(await theirs.metrics());
    h.reset();
    p.reset();
    expect(await ours.metrics()).toBe(await theirs.metrics());
  });

  it('refuses a value that is not a number', () => {
    const s = new SeriesHistogram('y_seconds', 'h', [1], new Registry()).series({ route: '/' });
    expect(() => s.observe(Number.NaN)).toThrow(TypeError);
  });
});
