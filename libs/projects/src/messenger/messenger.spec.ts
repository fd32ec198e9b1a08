import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { zipSync } from 'fflate';
import { ChatExportError, parseSlackExport, parseTelegramExport, parseWhatsAppExport, renderTranscript } from './index';
import { splitMessages } from '@app/knowledge';

const FIX = join(__dirname, '__fixtures__');
const read = (name: string): string => readFileSync(join(FIX, name), 'utf8');

/** The Slack fixture directory zipped as Slack's export is (paths relative to its root). */
function slackZip(): Buffer {
  const root = join(FIX, 'slack-export');
  const files: Record<string, Uint8Array> = {};
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else files[relative(root, p)] = readFileSync(p);
    }
  };
  walk(root);
  return Buffer.from(zipSync(files));
}

describe('Telegram Desktop export', () => {
  it('single chat: text messages only (service and media-only skipped), entity lists joined, links kept', () => {
    const msgs = parseTelegramExport(read('telegram-single-chat.json'));
    expect(msgs).toEqual([
      { ts: '2026-01-10T09:01:12', author: 'Anna Petrova', text: 'The release is planned for Friday.' },
      {
        ts: '2026-01-10T09:02:40',
        author: 'Boris Ivanov',
        text: 'Checklist is here: wiki (https://wiki.example.com/release)\nsecond line of the same message',
      },
    ]);
  });

  it('full export: every chat of chats.list and left_chats.list, named', () => {
    const msgs = parseTelegramExport(read('telegram-full-export.json'));
    expect(msgs.map((m) => [m.chat, m.author, m.text])).toEqual([
      ['Boris Ivanov', 'Boris Ivanov', 'Did you sign the contract?'],
      ['Boris Ivanov', 'Anna Petrova', 'Yes, signed this morning.'],
      ['Ops', 'Anna Petrova', 'Backups run at 02:00 UTC.'],
      ['Old project', 'Oleg', 'Archived.'],
    ]);
  });

  it('refuses what is not an export', () => {
    expect(() => parseTelegramExport('{"hello": 1}')).toThrow(ChatExportError);
    expect(() => parseTelegramExport('not json')).toThrow(/not valid JSON/);
  });
});

describe('WhatsApp export', () => {
  it('Android, day first (DD/MM/YYYY, 24h): system lines and media skipped, multi-line messages kept whole', () => {
    const msgs = parseWhatsAppExport(read('whatsapp-android-ddmmyyyy.txt'));
    expect(msgs).toEqual([
      { ts: '2025-12-31T22:16:00', author: 'Anna', text: 'Happy New Year everyone!' },
      {
        ts: '2025-12-31T22:17:00',
        author: 'Boris',
        text: 'Thanks! The dinner is at 8.\nWe bring the cake.\n\nAnd the candles.',
      },
      { ts: '2026-01-13T18:40:00', author: 'Boris', text: 'See you on the 20th' },
    ]);
  });

  it('iOS, month first (M/D/YY, 12h with seconds): AM/PM converted, the join line is a system line', () => {
    const msgs = parseWhatsAppExport(read('whatsapp-ios-mmddyy.txt'));
    expect(msgs).toEqual([
      { ts: '2026-01-02T09:05:11', author: 'Carol', text: 'Standup moved to 10' },
      { ts: '2026-01-02T09:06:30', author: 'Dave', text: 'OK\nmulti-line: agenda is\n- deploy\n- retro' },
      { ts: '2026-01-13T12:00:00', author: 'Carol', text: 'Lunch at noon' },
    ]);
  });

  it('no date decides: 12-hour times mean month first, 24-hour day first', () => {
    expect(parseWhatsAppExport('02/03/26, 1:00 PM - A: x')[0].ts).toBe('2026-02-03T13:00:00');
    expect(parseWhatsAppExport('02/03/2026, 13:00 - A: x')[0].ts).toBe('2026-03-02T13:00:00');
  });

  it('refuses text with no message line', () => {
    expect(() => parseWhatsAppExport('hello\nworld')).toThrow(ChatExportError);
  });
});

describe('Slack export (.zip)', () => {
  it('channels in name order, days in order, messages by ts; joins skipped; mentions and links resolved', () => {
    const msgs = parseSlackExport(slackZip());
    expect(msgs).toEqual([
      { ts: '2026-01-05T08:03:20Z', author: 'anna.p', text: 'Thanks & noted', chat: 'general' },
      {
        ts: '2026-01-05T08:05:00Z',
        author: 'Boris Ivanov',
        text: '@anna.p the invoice is in the billing portal (https://billing.example.com/inv/42)',
        chat: 'general',
      },
      {
        ts: '2026-01-06T09:00:00Z',
        author: 'anna.p',
        text: 'Quarterly numbers:\n- revenue up\n- costs flat',
        chat: 'general',
      },
      { ts: '2026-01-05T10:46:40Z', author: 'deploybot', text: 'Deployed v1.2.3', chat: 'random' },
    ]);
  });

  it('refuses a non-zip and a zip without channel files', () => {
    expect(() => parseSlackExport(Buffer.from('plain text'))).toThrow(/not a readable .zip/);
    expect(() => parseSlackExport(Buffer.from(zipSync({ 'readme.txt': new Uint8Array([104, 105]) })))).toThrow(
      /no <channel>/,
    );
  });
});

describe('transcript rendering', () => {
  it('one unit per message: continuation lines indented, so message-window chunking never splits a message', () => {
    const text = renderTranscript([
      { ts: '2026-01-02T09:06:30', author: 'Dave', text: 'OK\nagenda:\n- deploy' },
      { ts: null, author: 'Carol', text: 'fine', chat: 'general' },
      { ts: null, author: 'Erin', text: '   ' },
    ]);
    expect(text).toBe('[2026-01-02T09:06:30] Dave: OK\n  agenda:\n  - deploy\n#general Carol: fine');
    expect(splitMessages(text)).toEqual([
      '[2026-01-02T09:06:30] Dave: OK\n  agenda:\n  - deploy',
      '#general Carol: fine',
    ]);
  });
});
