/**
 * Calendar months in a time zone (DOCUMENTS_TZ): where a month starts and ends as instants, which
 * month an instant falls in, and when a month is closed for acts.
 */

const DAY_MS = 86_400_000;

/** The zone's offset from UTC at `instant` (ms; Moscow: +3 h). */
export function zoneOffsetMs(timeZone: string, instant: number): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(new Date(instant));
  const get = (t: string) => Number(parts.find((p) => p.type === t)?.value);
  const asUtc = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  return asUtc - Math.floor(instant / 1000) * 1000;
}

/** The instant of local midnight starting `day` of `month` (1-based) in `year`, in the zone. */
export function localMidnight(timeZone: string, year: number, month: number, day = 1): number {
  const wall = Date.UTC(year, month - 1, day);
  let t = wall - zoneOffsetMs(timeZone, wall);
  t = wall - zoneOffsetMs(timeZone, t);
  return t;
}

export interface MonthKey {
  year: number;
  month: number;
}

/** "2026-11" → {year, month}; null when malformed. */
export function parseMonth(s: string): MonthKey | null {
  const m = /^(\d{4})-(\d{2})$/.exec(s);
  if (!m) return null;
  const month = Number(m[2]);
  return month >= 1 && month <= 12 ? { year: Number(m[1]), month } : null;
}

export function monthLabel(k: MonthKey): string {
  return `${k.year}-${String(k.month).padStart(2, '0')}`;
}

export function nextMonth(k: MonthKey): MonthKey {
  return k.month === 12 ? { year: k.year + 1, month: 1 } : { year: k.year, month: k.month + 1 };
}

/** [start, end) of the month as instants. */
export function monthRange(timeZone: string, k: MonthKey): { from: number; to: number } {
  const n = nextMonth(k);
  return { from: localMidnight(timeZone, k.year, k.month), to: localMidnight(timeZone, n.year, n.month) };
}

/** The local calendar date of an instant in the zone. */
export function localDate(timeZone: string, instant: number): { year: number; month: number; day: number } {
  const d = new Date(instant + zoneOffsetMs(timeZone, instant));
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}

/** The month an instant falls in, in the zone. */
export function monthOf(timeZone: string, instant: number): MonthKey {
  const { year, month } = localDate(timeZone, instant);
  return { year, month };
}

/** A month is closed from local midnight of the next month's 1st day plus `closeDays` days. */
export function monthClosesAt(timeZone: string, k: MonthKey, closeDays: number): number {
  const n = nextMonth(k);
  return localMidnight(timeZone, n.year, n.month) + closeDays * DAY_MS;
}

export function compareMonths(a: MonthKey, b: MonthKey): number {
  return a.year - b.year || a.month - b.month;
}

const RU_MONTHS_GENITIVE = [
  'января',
  'февраля',
  'марта',
  'апреля',
  'мая',
  'июня',
  'июля',
  'августа',
  'сентября',
  'октября',
  'ноября',
  'декабря',
];
const RU_MONTHS = [
  'январь',
  'февраль',
  'март',
  'апрель',
  'май',
  'июнь',
  'июль',
  'август',
  'сентябрь',
  'октябрь',
  'ноябрь',
  'декабрь',
];

/** "28 ноября 2026 г." */
export function russianDate(d: { year: number; month: number; day: number }): string {
  return `${d.day} ${RU_MONTHS_GENITIVE[d.month - 1]} ${d.year} г.`;
}

/** "ноябрь 2026 г." */
export function russianMonth(k: MonthKey): string {
  return `${RU_MONTHS[k.month - 1]} ${k.year} г.`;
}
