import { apiResponseText, DEFAULT_RAG, imageMime, mergeRag, selectJsonPath } from './project-rules';

describe('project rules', () => {
  it('RAG settings: defaults, and a patch replaces only the fields given', () => {
    expect(DEFAULT_RAG).toEqual({ top_k: 15, rerank: true, file_threshold: 0.3, kb_threshold: 0.1 });
    expect(mergeRag(DEFAULT_RAG, { top_k: 20, rerank: false })).toEqual({
      top_k: 20,
      rerank: false,
      file_threshold: 0.3,
      kb_threshold: 0.1,
    });
  });

  it('json paths select one value', () => {
    const v = { data: { items: [{ name: 'a' }, { name: 'b' }] } };
    expect(selectJsonPath(v, 'data.items[1].name')).toBe('b');
    expect(selectJsonPath(v, '$.data.items')).toEqual(v.data.items);
    expect(selectJsonPath(v, 'data.missing')).toBeUndefined();
    expect(() => selectJsonPath(v, 'data..[x')).toThrow(/Invalid json_path/);
  });

  it('API responses: JSON pretty-printed (or the selected part), text as is', () => {
    expect(apiResponseText(Buffer.from('{"a":{"b":1}}'), null)).toEqual({
      text: '{\n  "a": {\n    "b": 1\n  }\n}',
      json: true,
    });
    expect(apiResponseText(Buffer.from('{"a":{"b":"x"}}'), 'a.b')).toEqual({ text: 'x', json: false });
    expect(apiResponseText(Buffer.from('plain'), null)).toEqual({ text: 'plain', json: false });
    expect(() => apiResponseText(Buffer.from('{"a":1}'), 'b')).toThrow(/selects nothing/);
  });

  it('image types by magic numbers', () => {
    expect(imageMime(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0]))).toBe('image/png');
    expect(imageMime(Buffer.from([0xff, 0xd8, 0xff, 0xe0]))).toBe('image/jpeg');
    expect(imageMime(Buffer.from('GIF89a....'))).toBe('image/gif');
    expect(imageMime(Buffer.from('RIFF\0\0\0\0WEBPVP8 '))).toBe('image/webp');
    expect(imageMime(Buffer.from('%PDF-1.7'))).toBeNull();
  });
});
