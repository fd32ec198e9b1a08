import { parseSseText, SseParser } from './sse-parser';

function feedAll(parser: SseParser, chunks: Array<Uint8Array | string>) {
  const events = chunks.flatMap((c) => parser.push(c));
  return [...events, ...parser.end()];
}

describe('SseParser', () => {
  it('parses LF-terminated events with event, id and data fields', () => {
    expect(parseSseText('event: message_start\nid: 7\ndata: {"a":1}\n\ndata: second\n\n')).toEqual([
      { event: 'message_start', id: '7', data: '{"a":1}' },
      { data: 'second' },
    ]);
  });

  it('handles CRLF and lone CR line endings', () => {
    expect(parseSseText('data: one\r\n\r\ndata: two\r\rdata: three\n\n')).toEqual([
      { data: 'one' },
      { data: 'two' },
      { data: 'three' },
    ]);
  });

  it('joins multi-line data with \\n and keeps empty data lines', () => {
    expect(parseSseText('data: line 1\ndata:line 2\ndata\ndata:  indented\n\n')).toEqual([
      { data: 'line 1\nline 2\n\n indented' },
    ]);
  });

  it('ignores comments, retry and unknown fields, and blank-line-only blocks', () => {
    expect(
      parseSseText(': keep-alive\n\n: OPENROUTER PROCESSING\nretry: 3000\nfoo: bar\n\nevent: ping\n\ndata: x\n\n'),
    ).toEqual([{ data: 'x' }]);
  });

  it('does not leak event type or id into the next event', () => {
    expect(parseSseText('event: a\nid: 1\ndata: 1\n\ndata: 2\n\n')).toEqual([
      { event: 'a', id: '1', data: '1' },
      { data: '2' },
    ]);
  });

  it('keeps colons in values and treats a line without colon as a field name', () => {
    expect(parseSseText('data: {"url":"http://x"}\n\n')).toEqual([{ data: '{"url":"http://x"}' }]);
  });

  it('strips a leading BOM', () => {
    expect(parseSseText('\uFEFFdata: hi\n\n')).toEqual([{ data: 'hi' }]);
  });

  it('dispatches a trailing event that lacks the final blank line at end of input', () => {
    expect(parseSseText('data: a\n\ndata: [DONE]\n')).toEqual([{ data: 'a' }, { data: '[DONE]' }]);
    expect(parseSseText('data: [DONE]')).toEqual([{ data: '[DONE]' }]);
  });

  it('returns events as soon as they complete', () => {
    const parser = new SseParser();
    expect(parser.push('data: a\n')).toEqual([]);
    expect(parser.push('\ndata: b')).toEqual([{ data: 'a' }]);
    expect(parser.push('\n\n')).toEqual([{ data: 'b' }]);
    expect(parser.end()).toEqual([]);
  });

  it('handles a CRLF split between two chunks without producing an extra blank line', () => {
    const parser = new SseParser();
    const events = feedAll(parser, ['data: a\r', '\ndata: b\r', '\n\r', '\n']);
    expect(events).toEqual([{ data: 'a\nb' }]);
  });

  it('handles chunks split at every byte, including inside multi-byte UTF-8 sequences', () => {
    const text = 'event: content_block_delta\r\ndata: {"text":"Привет, 世界 👋"}\r\n\r\ndata: ünïcödé\n\n';
    const bytes = Buffer.from(text, 'utf8');
    const parser = new SseParser();
    const chunks: Uint8Array[] = [];
    for (let i = 0; i < bytes.length; i++) chunks.push(bytes.subarray(i, i + 1));
    expect(feedAll(parser, chunks)).toEqual([
      { event: 'content_block_delta', data: '{"text":"Привет, 世界 👋"}' },
      { data: 'ünïcödé' },
    ]);
  });

  it('gives the same result for every two-way split of a byte stream', () => {
    const text = ': c\r\nevent: e\r\ndata: 🙂 a\r\ndata: b\r\n\r\ndata: z\n\n';
    const bytes = Buffer.from(text, 'utf8');
    const expected = [{ event: 'e', data: '🙂 a\nb' }, { data: 'z' }];
    for (let cut = 0; cut <= bytes.length; cut++) {
      const parser = new SseParser();
      expect(feedAll(parser, [bytes.subarray(0, cut), bytes.subarray(cut)])).toEqual(expected);
    }
  });
});
