import { ChatExportError, ChatMessage } from './chat-message';

/**
 * WhatsApp's "Export chat" text. Two line styles:
 *   Android  `31/12/2021, 22:15 - Alice: text`      (or `12/31/21, 10:15 PM - Alice: text`)
 *   iOS      `[31/12/2021, 22:15:03] Alice: text`   (or `[12/31/21, 10:15:03 PM] Alice: text`)
 * Dates use `/`, `.` or `-`. The day/month order is decided for the whole file: a first number above
 * 12 means day first, a second above 12 month first; when no date tells, 12-hour times (AM/PM) mean
 * month first (US style), otherwise day first. A line that does not start a message continues the
 * previous one (multi-line messages). Lines with a time but no `author:` are system lines
 * (encryption notice, joins, group changes) and are skipped, as is `<Media omitted>`.
 */
const LINE =
  /^\u200e?\[?(\d{1,2})[./-](\d{1,2})[./-](\d{2,4}),?\s+(\d{1,2}):(\d{2})(?::(\d{2}))?\s*([AaPp]\.?\s?[Mm]\.?)?\]?\s*(?:-\s)?\s*(.*)$/;

interface Raw {
  a: number;
  b: number;
  y: number;
  h: number;
  min: number;
  s: number;
  rest: string;
}

export function parseWhatsAppExport(text: string): ChatMessage[] {
  const lines = text
    .replace(/^\uFEFF/, '')
    .replace(/\r\n?/g, '\n')
    .split('\n');
  const raws: { raw: Raw; lines: string[] }[] = [];
  let twelveHour = false;
  for (const line of lines) {
    const m = LINE.exec(
      line.replace(/[\u200e\u200f\u202f\u00a0]/g, (c) => (c === '\u202f' || c === '\u00a0' ? ' ' : '')),
    );
    if (m) {
      let h = Number(m[4]);
      const ampm = m[7]?.replace(/[.\s]/g, '').toLowerCase();
      if (ampm) {
        twelveHour = true;
        if (ampm === 'pm' && h < 12) h += 12;
        if (ampm === 'am' && h === 12) h = 0;
      }
      raws.push({
        raw: {
          a: Number(m[1]),
          b: Number(m[2]),
          y: Number(m[3]),
          h,
          min: Number(m[5]),
          s: Number(m[6] ?? 0),
          rest: m[8],
        },
        lines: [],
      });
    } else if (raws.length > 0) {
      raws[raws.length - 1].lines.push(line);
    }
  }
  if (raws.length === 0) throw new ChatExportError('Not a WhatsApp chat export: no line starts with a date and time.');
  const dayFirst = raws.some((r) => r.raw.a > 12) ? true : raws.some((r) => r.raw.b > 12) ? false : !twelveHour;
  const out: ChatMessage[] = [];
  for (const { raw, lines: more } of raws) {
    const colon = raw.rest.indexOf(': ');
    if (colon <= 0) continue; // system line
    const author = raw.rest.slice(0, colon).trim();
    const body = [raw.rest.slice(colon + 2), ...more].join('\n').replace(/\s+$/, '');
    if (body === '' || /^<(Media omitted|Медиа отсутствует)>$/.test(body) || body === '\u200eimage omitted') continue;
    const [day, month] = dayFirst ? [raw.a, raw.b] : [raw.b, raw.a];
    const year = raw.y < 100 ? 2000 + raw.y : raw.y;
    out.push({
      ts: `${year}-${pad(month)}-${pad(day)}T${pad(raw.h)}:${pad(raw.min)}:${pad(raw.s)}`,
      author,
      text: body,
    });
  }
  return out;
}

const pad = (n: number): string => String(n).padStart(2, '0');
