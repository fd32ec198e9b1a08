import { pickDeployment } from './deployment-pick';

const D = [
  { id: 'a', weight: 3 },
  { id: 'b', weight: 1 },
];

/** Deterministic [0, 1) sequence. */
function seq(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe('weighted deployment pick', () => {
  it('splits traffic by weight', () => {
    const rnd = seq(7);
    const counts = { a: 0, b: 0 };
    for (let i = 0; i < 4000; i++) counts[pickDeployment(D, new Set(), rnd).id as 'a' | 'b']++;
    expect(counts.a / 4000).toBeGreaterThan(0.7);
    expect(counts.a / 4000).toBeLessThan(0.8);
  });

  it('maps the random draw onto cumulative weights', () => {
    expect(pickDeployment(D, new Set(), () => 0).id).toBe('a');
    expect(pickDeployment(D, new Set(), () => 0.74).id).toBe('a');
    expect(pickDeployment(D, new Set(), () => 0.76).id).toBe('b');
    expect(pickDeployment(D, new Set(), () => 0.9999999).id).toBe('b');
  });

  it('skips a cooling deployment while another is warm, whatever the weights', () => {
    const heavy = [
      { id: 'a', weight: 1000 },
      { id: 'b', weight: 1 },
    ];
    const rnd = seq(3);
    for (let i = 0; i < 200; i++) expect(pickDeployment(heavy, new Set(['a']), rnd).id).toBe('b');
  });

  it('when every deployment is cooling, one is still picked (by weight)', () => {
    expect(pickDeployment(D, new Set(['a', 'b']), () => 0).id).toBe('a');
    expect(pickDeployment(D, new Set(['a', 'b']), () => 0.9).id).toBe('b');
  });

  it('a single deployment is always picked; none is an error', () => {
    expect(pickDeployment([{ id: 'x', weight: 5 }], new Set(['x'])).id).toBe('x');
    expect(() => pickDeployment([], new Set())).toThrow();
  });
});
