import type { DocumentChunk } from '../document-parser';
import { packChunks, unpackChunks } from './packed-chunks';

const chunk = (i: number, text: string, page: number | null): DocumentChunk => ({
  ordinal: i,
  page,
  text,
  tokens: text.length + i,
  contentHash: i.toString(16).padStart(64, '0'),
});

describe('packed chunks', () => {
  it('unpack gives back the chunks packed: texts (any script), pages (none included), tokens, hashes, ordinals', async () => {
    const chunks = [
      chunk(0, 'Первая страница — «текст».', 1),
      chunk(1, '', null),
      chunk(2, 'emoji 🙂 and CJK 漢字', 2),
      chunk(7, 'x'.repeat(5_000), 0),
    ];
    const packed = packChunks(chunks);
    expect(packed.ends).toBeInstanceOf(Int32Array);
    expect(await unpackChunks(structuredClone(packed))).toEqual(chunks);
    expect(await unpackChunks(packChunks([]))).toEqual([]);
  });

  it('a large document is unpacked a slice at a time, the event loop free between slices', async () => {
    const chunks = Array.from({ length: 2_000 }, (_, i) => chunk(i, `chunk ${i}`, i % 3 === 0 ? null : i));
    const immediates: number[] = [];
    const spy = (function watch() {
      const id = setImmediate(() => {
        immediates.push(1);
        if (immediates.length < 10) watch();
      });
      return id;
    })();
    const out = await unpackChunks(packChunks(chunks));
    clearImmediate(spy);
    expect(out).toEqual(chunks);
    // other immediates ran while it unpacked (2,000 chunks: 3 yields)
    expect(immediates.length).toBeGreaterThanOrEqual(3);
  });
});
