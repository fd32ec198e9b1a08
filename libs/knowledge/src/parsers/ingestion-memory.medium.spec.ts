/**
 * Memory of parsing a large document: a ~10 MB HTML page goes through the parser workers (type
 * sniffing, extraction, token chunking) as ingestion runs it, while the process's RSS is sampled.
 * The bound is on memory, not time: a DOM of such a page (the Readability path) takes over a
 * gigabyte, the streaming extractor a small multiple of the text.
 */
import { readFileSync } from 'node:fs';
import { ParserPool } from '@app/common';
import { AppConfig } from '@app/config';
import { TokenCounter } from '@app/providers';
import { AUTO_CHUNKING } from '../kb-rules';
import { LibraryDocumentParser } from './library-document-parser';

const MB = 1024 * 1024;
const MAX_RSS_GROWTH_MB = 300;

const rssMb = (): number => Number(/VmRSS:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))![1]) / 1024;

/** A deterministic page of `bytes`: head with scripts and styles, navigation, sections of prose, lists and tables. */
function page(bytes: number): Buffer {
  const words = 'harbour ledger invoice turbine meadow lantern quartz orbit cedar signal velvet copper'.split(' ');
  let x = 7;
  const prose = (n: number) => {
    const out: string[] = [];
    for (let i = 0; i < n; i++) {
      x = (x * 1103515245 + 12345) & 0x7fffffff;
      out.push(words[x % words.length] + (x % 89));
    }
    return out.join(' ') + '.';
  };
  const parts = [
    `<!doctype html><html><head><title>Handbook</title><style>${'.c{margin:0}'.repeat(500)}</style><script>${'track();'.repeat(500)}</script></head><body><nav>Home | Login</nav><main>`,
  ];
  let size = parts[0].length;
  for (let i = 0; size < bytes - 2000; i++) {
    const part =
      `<section><h2>Section ${i}</h2><p class="c">${prose(90)}</p><p>${prose(70)} <b>${prose(3)}</b></p>` +
      `<ul><li>${prose(12)}</li><li>${prose(12)}</li></ul><script>track(${i})</script>` +
      (i % 5 === 0
        ? `<table><tr><th>Item</th><th>Value</th></tr><tr><td>${prose(2)}</td><td>${i}</td></tr></table>`
        : '') +
      '</section>\n';
    parts.push(part);
    size += part.length;
  }
  parts.push('</main><footer>Copyright</footer></body></html>');
  return Buffer.from(parts.join(''));
}

describe('ingestion memory', () => {
  const pool = new ParserPool(AppConfig.fromEnv({}));
  const parser = new LibraryDocumentParser(
    { embeddings: new TokenCounter('cl100k_base') } as never,
    pool,
    AppConfig.fromEnv({}),
  );
  afterAll(() => pool.onApplicationShutdown());

  it(`a 10 MB HTML page is sniffed, extracted and chunked with RSS growth under ${MAX_RSS_GROWTH_MB} MB`, async () => {
    const html = page(10 * MB - 64 * 1024);
    // warm-up: the workers load their parser libraries and tokenizer tables once
    const small = Buffer.from('<html><body><p>The harbour opens at dawn.</p></body></html>');
    await parser.chunk(await parser.extract(small, {}), AUTO_CHUNKING);
    global.gc?.();
    const before = rssMb();
    let peak = before;
    const timer = setInterval(() => (peak = Math.max(peak, rssMb())), 20);
    try {
      expect(await parser.sniff(html, { filename: 'page.html' })).toBe('html');
      const doc = await parser.extract(html, { filename: 'page.html' });
      const chunks = await parser.chunk(doc, AUTO_CHUNKING);
      peak = Math.max(peak, rssMb());
      expect(doc.title).toBe('Handbook');
      expect(doc.pages[0].text.startsWith('## Section 0\n\n')).toBe(true);
      expect(doc.pages[0].text).not.toContain('track(');
      expect(doc.pages[0].text).not.toContain('Home | Login');
      expect(doc.pages[0].text.length).toBeGreaterThan(7 * MB);
      expect(chunks.length).toBeGreaterThan(3000);
    } finally {
      clearInterval(timer);
    }
    expect(peak - before).toBeLessThan(MAX_RSS_GROWTH_MB);
  }, 180_000);
});
