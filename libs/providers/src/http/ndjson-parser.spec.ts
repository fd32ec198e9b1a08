import { NdjsonParser, parseNdjsonText } from './ndjson-parser';

describe('NdjsonParser', () => {
  const text = '{"a":"при"}\n\n{"b":2}\r\n{"c":3}';

  it('yields one event per non-blank line, the last one without a newline at the end', () => {
    expect(parseNdjsonText(text).map((e) => JSON.parse(e.data) as unknown)).toEqual([{ a: 'при' }, { b: 2 }, { c: 3 }]);
  });

  it.each([1, 3, 5, 4096])('gives the same events in %i-byte slices (split UTF-8 sequences kept whole)', (size) => {
    const bytes = Buffer.from(text, 'utf8');
    const parser = new NdjsonParser();
    const events = [];
    for (let i = 0; i < bytes.length; i += size) events.push(...parser.push(bytes.subarray(i, i + size)));
    events.push(...parser.end());
    expect(events).toEqual(parseNdjsonText(text));
  });
});
