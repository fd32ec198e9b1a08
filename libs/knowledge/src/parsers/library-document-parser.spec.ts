import { ParserPool } from '@app/common';
import { AppConfig } from '@app/config';
import { TokenCounter } from '@app/providers';
import { ExtractionError } from '../document-parser';
import { LibraryDocumentParser } from './library-document-parser';

const tokens = new TokenCounter('cl100k_base');
const pool = new ParserPool(AppConfig.fromEnv({}));
const parser = new LibraryDocumentParser({ embeddings: tokens } as never, pool, AppConfig.fromEnv({}));
afterAll(() => pool.onApplicationShutdown());
const sniff = (s: string | Buffer, filename?: string) =>
  parser.sniff(Buffer.isBuffer(s) ? s : Buffer.from(s), { filename });

describe('type sniffing by content', () => {
  it('text formats by what they hold, not by their name', async () => {
    expect(await sniff('{"a": 1}', 'notes.txt')).toBe('json');
    expect(await sniff('<!doctype html><html><body><p>x</p></body></html>', 'page.txt')).toBe('html');
    expect(await sniff('name,age\nann,3\nbob,4\n', 'data.txt')).toBe('csv');
    expect(await sniff('# Title\n\nSome text.', 'a.txt')).toBe('markdown');
    expect(await sniff('Just a sentence, with a comma.\nAnd another line.')).toBe('text');
  });
  it('binary formats by magic number; unknown binary is unsupported', async () => {
    expect(await sniff(Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(64)]), 'x.txt')).toBe('pdf');
    expect(await sniff(Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), 'x.pdf')).toBe('image');
    await expect(sniff(Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0, 0, 0]), 'x.md')).rejects.toMatchObject({
      code: 'unsupported_file',
    });
    await expect(sniff(Buffer.from([0xff, 0xfe, 0x00, 0x41, 0x00]), 'x.md')).rejects.toBeInstanceOf(ExtractionError);
  });
});

describe('extraction', () => {
  it('every format comes out normalised: no control characters or NUL, one line break, NFC', async () => {
    const text = await parser.extract(
      Buffer.from('# Re\u0301sume\u0301\u0000\r\nline\u0000 one of a longer paragraph\u0007'),
      {},
    );
    expect(text).toMatchObject({
      kind: 'markdown',
      title: 'R\u00e9sum\u00e9',
      pages: [{ text: '# R\u00e9sum\u00e9\nline one of a longer paragraph' }],
    });
    const csv = await parser.extract(Buffer.from('city,note\nParis,caf\u0000e\u0301\nOslo,\u0001fjord\n'), {});
    expect(csv.units).toEqual(['city: Paris; note: caf\u00e9', 'city: Oslo; note: fjord']);
    const html = await parser.extract(
      Buffer.from(
        '<html><head><title>T\u0000itle</title></head><body><p>Cre\u0300me\u0000 bru\u0302le\u0301e</p></body></html>',
      ),
      {},
    );
    expect(html.title).toBe('Title');
    expect(html.pages[0].text).toBe('Cr\u00e8me br\u00fbl\u00e9e');
  });
  it('CSV: one unit per row with the header repeated', async () => {
    const doc = await parser.extract(Buffer.from('city,country\nParis,France\nOslo,Norway\n'), {});
    expect(doc.kind).toBe('csv');
    expect(doc.units).toEqual(['city: Paris; country: France', 'city: Oslo; country: Norway']);
  });
  it('HTML: the main content as Markdown, navigation dropped, title kept', async () => {
    const html =
      '<html><head><title>Guide</title></head><body><nav>Menu | Login</nav><article><h2>Steps</h2><p>First open the lid carefully and then remove the filter cartridge before rinsing it in water.</p><p>Second, put the cartridge back and close the lid until it clicks.</p></article><footer>copyright</footer></body></html>';
    const doc = await parser.extract(Buffer.from(html), {});
    expect(doc.title).toBe('Guide');
    expect(doc.pages[0].text).toContain('## Steps');
    expect(doc.pages[0].text).toContain('remove the filter cartridge');
    expect(doc.pages[0].text).not.toContain('Menu | Login');
  });
});

describe('token chunking', () => {
  const text = Array.from({ length: 300 }, (_, i) => `word${i}`).join(' ');
  it('windows of max tokens overlapping by exactly the overlap', async () => {
    const chunks = await parser.chunk(
      { kind: 'text', mime: 'text/plain', pages: [{ page: 1, text }] },
      { type: 'static', maxTokens: 100, overlapTokens: 40 },
    );
    const ids = tokens.encode(text);
    expect(chunks.length).toBe(Math.ceil((ids.length - 100) / 60) + 1);
    expect(chunks.slice(0, -1).every((c) => c.tokens === 100)).toBe(true);
    expect(tokens.decode(ids.slice(60, 160)).trim()).toBe(chunks[1].text);
    expect(chunks.map((c) => c.ordinal)).toEqual(chunks.map((_, i) => i));
    expect(chunks[0].contentHash).toMatch(/^[0-9a-f]{64}$/);
    expect(chunks[0].page).toBeNull();
  });
  it('PDF chunks keep their page and never span pages', async () => {
    const chunks = await parser.chunk(
      {
        kind: 'pdf',
        mime: 'application/pdf',
        pages: [
          { page: 1, text: 'alpha beta' },
          { page: 2, text: 'gamma delta' },
        ],
      },
      { type: 'auto', maxTokens: 800, overlapTokens: 400 },
    );
    expect(chunks.map((c) => [c.page, c.text])).toEqual([
      [1, 'alpha beta'],
      [2, 'gamma delta'],
    ]);
  });
  it('CSV rows are grouped whole', async () => {
    const units = Array.from({ length: 50 }, (_, i) => `id: ${i}; name: item number ${i}`);
    const chunks = await parser.chunk(
      { kind: 'csv', mime: 'text/csv', pages: [], units },
      { type: 'static', maxTokens: 100, overlapTokens: 0 },
    );
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.every((c) => c.tokens <= 100)).toBe(true);
    expect(chunks.flatMap((c) => c.text.split('\n'))).toEqual(units);
  });
});

describe('message-window chunking (chats)', () => {
  const message = (i: number, lines = 1) =>
    [
      `[2026-01-01T10:${String(i).padStart(2, '0')}:00] user${i}: message number ${i} about topic ${i}`,
      ...Array.from({ length: lines - 1 }, (_, k) => `  continuation ${k} of message ${i} with a few more words`),
    ].join('\n');

  it('chunks hold whole messages: a message (with its indented lines) is never cut between chunks', async () => {
    const msgs = Array.from({ length: 40 }, (_, i) => message(i, 1 + (i % 3)));
    const chunks = await parser.chunk(
      { kind: 'markdown', mime: 'text/markdown', pages: [{ page: 1, text: msgs.join('\n') }] },
      { type: 'messages', maxTokens: 100, overlapTokens: 0 },
    );
    expect(chunks.length).toBeGreaterThan(3);
    const rebuilt = chunks.flatMap((c) => c.text.split(/\n(?=\S)/));
    expect(rebuilt).toEqual(msgs);
    for (const c of chunks) expect(c.tokens).toBeLessThanOrEqual(100);
  });

  it('windows are content-defined: dropping the oldest messages and appending new ones keeps the middle chunks', async () => {
    const msgs = Array.from({ length: 200 }, (_, i) => message(i, 1));
    const cut = async (list: string[]) =>
      (
        await parser.chunk(
          { kind: 'text', mime: 'text/plain', pages: [{ page: 1, text: list.join('\n') }] },
          { type: 'messages', maxTokens: 800, overlapTokens: 0 },
        )
      ).map((c) => c.contentHash);
    const before = await cut(msgs.slice(0, 150));
    const after = await cut(msgs.slice(5, 155));
    const kept = before.filter((h) => after.includes(h)).length;
    expect(before.length).toBeGreaterThan(5);
    expect(kept).toBeGreaterThanOrEqual(before.length - 3);
  });

  it('only a message longer than the window is split', async () => {
    const long = `[t] bob: ${'word '.repeat(300).trim()}`;
    const chunks = await parser.chunk(
      { kind: 'text', mime: 'text/plain', pages: [{ page: 1, text: [message(1), long, message(2)].join('\n') }] },
      { type: 'messages', maxTokens: 100, overlapTokens: 0 },
    );
    expect(chunks[0].text).toBe(message(1));
    expect(chunks[chunks.length - 1].text).toBe(message(2));
    expect(chunks.length).toBeGreaterThanOrEqual(5);
  });
});

describe('extraction and chunking in one worker task (ingestion)', () => {
  const chunking = { type: 'static' as const, maxTokens: 60, overlapTokens: 20 };

  it('gives the chunks, kind, title and page count that extract + chunk give', async () => {
    const bytes = Buffer.from(
      `# Harbour rules\n\n${'Permits are renewed on weekdays at the harbour office. '.repeat(60)}`,
    );
    const doc = await parser.extract(bytes, { filename: 'rules.md' });
    const chunks = await parser.chunk(doc, chunking);
    expect(chunks.length).toBeGreaterThan(3);
    expect(await parser.extractChunks(bytes, { filename: 'rules.md' }, chunking)).toEqual({
      kind: 'markdown',
      title: 'Harbour rules',
      pageCount: 1,
      chunks,
    });
  });

  it('a PDF whose text layer is near empty comes back whole, for OCR; an image has no chunks', async () => {
    const { PDFDocument, StandardFonts } = await import('pdf-lib');
    const pdf = await PDFDocument.create();
    const font = await pdf.embedFont(StandardFonts.Helvetica);
    for (const n of ['1', '2']) pdf.addPage([595, 842]).drawText(n, { x: 50, y: 50, size: 10, font });
    const scan = await parser.extractChunks(Buffer.from(await pdf.save()), { filename: 'scan.pdf' }, chunking);
    expect(scan).toEqual({
      scan: expect.objectContaining({
        kind: 'pdf',
        pages: [expect.objectContaining({ page: 1, text: '1' }), expect.objectContaining({ page: 2, text: '2' })],
      }),
    });
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex');
    expect(await parser.extractChunks(png, { filename: 'x.png' }, chunking)).toMatchObject({
      kind: 'image',
      chunks: [],
    });
  });
});
