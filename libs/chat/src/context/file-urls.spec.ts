import { SafeFetcher, SafeFetchResult } from '@app/common';
import { FileUrlResolver, isPdf } from './file-urls';
import { DocumentReader, ReadDocument, UnreadableDocument } from './ports';

const PDF = Buffer.from('%PDF-1.7\n...');

/** URL → what the fetcher returns (or throws); records what was fetched. */
class FakeFetcher {
  fetched: string[] = [];
  constructor(private readonly table: Record<string, SafeFetchResult>) {}
  async fetch(url: string): Promise<SafeFetchResult> {
    this.fetched.push(url);
    const r = this.table[url];
    if (!r) throw new Error('unreachable');
    return r;
  }
}

class FakeReader {
  async readPdf(bytes: Buffer): Promise<ReadDocument> {
    if (bytes.includes('notext')) throw new UnreadableDocument('no_text_layer', 'The PDF has no text layer.');
    return { pages: [{ page: 1, text: 'Fact.' }] };
  }
}

function resolver(table: Record<string, SafeFetchResult>) {
  const fetcher = new FakeFetcher(table);
  return {
    fetcher,
    r: new FileUrlResolver(fetcher as unknown as SafeFetcher, new FakeReader() as unknown as DocumentReader),
  };
}

describe('FileUrlResolver', () => {
  it('detects PDF by content: an extension-less URL with %PDF- is a PDF, an image type becomes a data: URL, image-named URLs are not fetched', async () => {
    const { r, fetcher } = resolver({
      'https://a.example/report': {
        bytes: PDF,
        contentType: 'application/octet-stream',
        finalUrl: 'https://a.example/report',
      },
      'https://a.example/pic': { bytes: Buffer.from([1, 2]), contentType: 'image/png; charset=binary', finalUrl: '' },
    });
    const out = await r.resolve([
      'https://a.example/report',
      'https://a.example/x.png',
      'https://a.example/pic',
      'data:image/gif;base64,R0lG',
    ]);
    expect(out.pdfs.map((p) => [p.param, p.url, p.title, p.doc.pages[0].text])).toEqual([
      ['file_urls[0]', 'https://a.example/report', 'report', 'Fact.'],
    ]);
    expect(out.images).toEqual(['https://a.example/x.png', 'data:image/png;base64,AQI=', 'data:image/gif;base64,R0lG']);
    expect(fetcher.fetched).toEqual(['https://a.example/report', 'https://a.example/pic']);
  });

  it('a .pdf name that is not a PDF and not an image → 400 file_url_unsupported_type; a PDF without text → 400 no_text_layer', async () => {
    const { r } = resolver({
      'https://a.example/fake.pdf': { bytes: Buffer.from('<html>'), contentType: 'text/html', finalUrl: '' },
      'https://a.example/scan.pdf': {
        bytes: Buffer.from('%PDF-1.4 notext'),
        contentType: 'application/pdf',
        finalUrl: '',
      },
    });
    await expect(r.resolve(['https://a.example/fake.pdf'])).rejects.toMatchObject({
      status: 400,
      code: 'file_url_unsupported_type',
      param: 'file_urls[0]',
    });
    await expect(r.resolve(['https://a.example/x.png', 'https://a.example/scan.pdf'])).rejects.toMatchObject({
      status: 400,
      code: 'no_text_layer',
      param: 'file_urls[1]',
    });
  });

  it('limits: more than 10 PDF-named URLs or 20 image-named URLs → 413 before any fetch; other schemes → 400', async () => {
    const { r, fetcher } = resolver({});
    await expect(r.resolve(Array.from({ length: 11 }, (_, i) => `https://a.example/${i}.pdf`))).rejects.toMatchObject({
      status: 413,
      param: 'file_urls',
    });
    await expect(r.resolve(Array.from({ length: 21 }, (_, i) => `https://a.example/${i}.jpg`))).rejects.toMatchObject({
      status: 413,
      param: 'file_urls',
    });
    await expect(r.resolve(['ftp://a.example/x.pdf'])).rejects.toMatchObject({ status: 400, param: 'file_urls[0]' });
    expect(fetcher.fetched).toEqual([]);
  });

  it('PDF magic within the first KB', () => {
    expect(isPdf(PDF)).toBe(true);
    expect(isPdf(Buffer.concat([Buffer.alloc(100, 0x20), PDF]))).toBe(true);
    expect(isPdf(Buffer.from('GIF89a'))).toBe(false);
  });
});
