import { describe, expect, it } from 'vitest';
import Papa from 'papaparse';
import { filterEntries, toCsv } from './usage-page';
import { spendByDayAndModel, type UsageEntry } from './usage-queries';

const e = (id: number, day: string, model: string | null, kind: 'charge' | 'top_up', amount: number) =>
  ({
    id: String(id),
    kind,
    request_id: `req-${id}`,
    reference: null,
    endpoint: model ? '/v1/chat/completions' : null,
    model,
    prompt_tokens: 10,
    completion_tokens: 5,
    total_tokens: 15,
    amount_rub: amount,
    balance_after_rub: 100,
    created_at: `${day}T12:00:00.000Z`,
  }) as unknown as UsageEntry;

const entries = [
  e(4, '2026-11-24', 'local', 'charge', -0.000123),
  e(3, '2026-11-24', 'gpt-4o', 'charge', -1.5),
  e(2, '2026-11-20', 'local', 'charge', -0.2),
  e(1, '2026-11-01', null, 'top_up', 1000),
];

describe('usage ledger', () => {
  it('filters by date range, model and kind', () => {
    expect(
      filterEntries(entries, { from: '2026-11-20', to: '2026-11-24', model: null, kind: null }).map((x) => x.id),
    ).toEqual(['4', '3', '2']);
    expect(filterEntries(entries, { from: '', to: '', model: 'local', kind: null }).map((x) => x.id)).toEqual([
      '4',
      '2',
    ]);
    expect(filterEntries(entries, { from: '', to: '', model: null, kind: 'top_up' }).map((x) => x.id)).toEqual(['1']);
    expect(filterEntries(entries, { from: '2026-11-21', to: '2026-11-23', model: null, kind: null })).toEqual([]);
  });

  it('exports CSV that parses back to the same rows', () => {
    const rows = Papa.parse<Record<string, string>>(toCsv(entries), { header: true }).data;
    expect(rows).toHaveLength(4);
    expect(rows[0]).toMatchObject({ id: '4', model: 'local', amount_rub: '-0.000123', kind: 'charge' });
    expect(rows[3]).toMatchObject({ kind: 'top_up', amount_rub: '1000', model: '' });
  });

  it('sums charges per day and model for the chart (top-ups left out)', () => {
    const chart = spendByDayAndModel(entries, 30, new Date('2026-11-25T09:00:00Z'));
    expect(chart.models).toEqual(['gpt-4o', 'local']);
    expect(chart.rows).toHaveLength(30);
    expect(chart.rows.find((r) => r.day === '11-24')).toMatchObject({ local: 0.000123, 'gpt-4o': 1.5 });
    expect(chart.rows.find((r) => r.day === '11-20')).toMatchObject({ local: 0.2 });
  });
});
