import { budgetPeriodKey, errorRateOver, maskToken, reachedPercents, retryDelayMs } from './alert-rules';

describe('alert rules', () => {
  it('budget period keys are the UTC day or month', () => {
    const t = Date.UTC(2026, 10, 30, 23, 59, 59);
    expect(budgetPeriodKey('day', t)).toBe('d:2026-11-30');
    expect(budgetPeriodKey('month', t)).toBe('m:2026-11');
    expect(budgetPeriodKey('day', t + 1000)).toBe('d:2026-12-01');
  });

  it('reached percentages: each threshold from the moment spend reaches it', () => {
    expect(reachedPercents(49_999_999, 100_000_000, [50, 80, 100])).toEqual([]);
    expect(reachedPercents(50_000_000, 100_000_000, [50, 80, 100])).toEqual([50]);
    expect(reachedPercents(100_000_000, 100_000_000, [50, 80, 100])).toEqual([50, 80, 100]);
    expect(reachedPercents(5, 0, [50])).toEqual([]);
  });

  it('error rate: over the percentage, with enough requests', () => {
    expect(errorRateOver(3, 10, { percent: 20, minRequests: 10 })).toBe(true);
    expect(errorRateOver(2, 10, { percent: 20, minRequests: 10 })).toBe(false);
    expect(errorRateOver(5, 5, { percent: 20, minRequests: 10 })).toBe(false);
    expect(errorRateOver(0, 0, { percent: 0, minRequests: 0 })).toBe(false);
  });

  it('retry delays double up to 10 minutes', () => {
    expect([1, 2, 3].map((a) => retryDelayMs(a, 1000))).toEqual([1000, 2000, 4000]);
    expect(retryDelayMs(30, 1000)).toBe(600_000);
  });

  it('masks bot tokens', () => {
    expect(maskToken('123456:ABCDEFGHIJ')).toBe('1234…GHIJ');
    expect(maskToken('short')).toBe('…');
  });
});
