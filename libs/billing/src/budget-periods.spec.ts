import { budgetPeriods } from './billing.service';

describe('budgetPeriods (UTC)', () => {
  it('day and month periods with their bounds', () => {
    const now = Date.UTC(2026, 11, 31, 23, 59, 59, 999);
    expect(budgetPeriods({ apiKeyId: 'k', dayMicro: 5, monthMicro: 50 }, now)).toEqual([
      { period: 'd:2026-12-31', capMicro: 5, start: Date.UTC(2026, 11, 31), end: Date.UTC(2027, 0, 1) },
      { period: 'm:2026-12', capMicro: 50, start: Date.UTC(2026, 11, 1), end: Date.UTC(2027, 0, 1) },
    ]);
  });
  it('only the budgets that are set', () => {
    expect(
      budgetPeriods({ apiKeyId: 'k', dayMicro: null, monthMicro: 7 }, Date.UTC(2028, 1, 29, 12)).map((p) => [
        p.period,
        p.end,
      ]),
    ).toEqual([['m:2028-02', Date.UTC(2028, 2, 1)]]);
    expect(budgetPeriods({ apiKeyId: 'k', dayMicro: null, monthMicro: null }, 0)).toEqual([]);
  });
});
