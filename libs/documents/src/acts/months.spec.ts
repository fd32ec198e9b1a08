import { localMidnight, monthClosesAt, monthOf, monthRange, parseMonth, russianDate, russianMonth } from './months';

describe('months in a time zone', () => {
  it('a Moscow month starts at 21:00 UTC of the day before', () => {
    const r = monthRange('Europe/Moscow', { year: 2026, month: 11 });
    expect(new Date(r.from).toISOString()).toBe('2026-10-31T21:00:00.000Z');
    expect(new Date(r.to).toISOString()).toBe('2026-11-30T21:00:00.000Z');
  });

  it('follows a zone with daylight saving (Berlin, October 2026 ends on winter time)', () => {
    const r = monthRange('Europe/Berlin', { year: 2026, month: 10 });
    expect(new Date(r.from).toISOString()).toBe('2026-09-30T22:00:00.000Z');
    expect(new Date(r.to).toISOString()).toBe('2026-10-31T23:00:00.000Z');
  });

  it('an instant late on the last UTC day belongs to the next Moscow month', () => {
    expect(monthOf('Europe/Moscow', Date.parse('2026-11-30T22:30:00Z'))).toEqual({ year: 2026, month: 12 });
    expect(monthOf('Europe/Moscow', Date.parse('2026-11-30T20:59:59Z'))).toEqual({ year: 2026, month: 11 });
  });

  it('closes a month on its next 1st day plus the close days', () => {
    const at = monthClosesAt('Europe/Moscow', { year: 2026, month: 12 }, 3);
    expect(at).toBe(localMidnight('Europe/Moscow', 2027, 1, 4));
    expect(new Date(at).toISOString()).toBe('2027-01-03T21:00:00.000Z');
  });

  it('parses and names months', () => {
    expect(parseMonth('2026-11')).toEqual({ year: 2026, month: 11 });
    expect(parseMonth('2026-13')).toBeNull();
    expect(parseMonth('2026-1')).toBeNull();
    expect(russianMonth({ year: 2026, month: 11 })).toBe('ноябрь 2026 г.');
    expect(russianDate({ year: 2026, month: 3, day: 8 })).toBe('8 марта 2026 г.');
  });
});
