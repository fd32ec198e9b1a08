import { ContentFormError, parseRerankContent, rowText, type TableColumnOptions } from './content';

function formError(content: unknown, options: TableColumnOptions = {}): ContentFormError {
  try {
    parseRerankContent(content, options);
  } catch (err) {
    if (err instanceof ContentFormError) return err;
    throw err;
  }
  throw new Error('expected a ContentFormError');
}

describe('parseRerankContent', () => {
  describe('plain text', () => {
    it('chunks the text: ids chunk-<index>, metadata {chunk_index, start, end}', () => {
      const text = 'x'.repeat(1801);
      const parsed = parseRerankContent(text);
      expect(parsed.form).toBe('text');
      expect(parsed.items).toEqual([
        { id: 'chunk-0', data: 'x'.repeat(1000), metadata: { chunk_index: 0, start: 0, end: 1000 } },
        { id: 'chunk-1', data: 'x'.repeat(1000), metadata: { chunk_index: 1, start: 800, end: 1800 } },
        { id: 'chunk-2', data: 'x'.repeat(201), metadata: { chunk_index: 2, start: 1600, end: 1801 } },
      ]);
      expect(parsed.form === 'text' && parsed.text).toBe(text);
    });

    it('short text is one chunk', () => {
      expect(parseRerankContent('Привет').items).toEqual([
        { id: 'chunk-0', data: 'Привет', metadata: { chunk_index: 0, start: 0, end: 6 } },
      ]);
    });

    it.each(['', '   \n\t'])('rejects empty/blank text %p', (text) => {
      const err = formError(text);
      expect(err.param).toBe('content');
      expect(err.message).toMatch(/empty/);
    });

    it.each<[keyof TableColumnOptions]>([['column_to_embed'], ['column_id']])('rejects %s with plain text', (param) => {
      const err = formError('some text', { [param]: 'col' });
      expect(err.param).toBe(param);
      expect(err.message).toMatch(/tabular content only/);
    });

    it('null column options count as not given', () => {
      expect(parseRerankContent('text', { column_to_embed: null, column_id: null }).form).toBe('text');
    });
  });

  describe('documents', () => {
    it('normalises ids (string kept, number stringified, missing → index) and metadata (default {})', () => {
      const parsed = parseRerankContent([
        { id: 'a', data: 'first', metadata: { lang: 'en' } },
        { id: 7, data: 'second' },
        { data: 'third', metadata: {} },
      ]);
      expect(parsed.form).toBe('documents');
      expect(parsed.items).toEqual([
        { id: 'a', data: 'first', metadata: { lang: 'en' } },
        { id: '7', data: 'second', metadata: {} },
        { id: '2', data: 'third', metadata: {} },
      ]);
    });

    it('allows nested metadata and empty data', () => {
      const parsed = parseRerankContent([{ data: '', metadata: { tags: ['x'], nested: { a: 1 } } }]);
      expect(parsed.items[0]).toEqual({ id: '0', data: '', metadata: { tags: ['x'], nested: { a: 1 } } });
    });

    it('rejects an element without data, naming it', () => {
      const err = formError([
        { data: 'ok', metadata: {} },
        { id: '2', metadata: {} },
      ]);
      expect(err.param).toBe('content[1]');
      expect(err.message).toMatch(/content\[1\].*data/);
    });

    it('rejects non-string data', () => {
      const err = formError([
        { data: 'ok', metadata: {} },
        { data: 5, metadata: {} },
      ]);
      expect(err.param).toBe('content[1]');
      expect(err.message).toMatch(/"data" must be a string/);
      // flat, but shaped like documents: validated as documents, not silently read as a table
      expect(formError([{ id: 1, data: 5 }]).message).toMatch(/"data" must be a string/);
      // ...unless column options say it is a table
      expect(parseRerankContent([{ id: 1, data: 5 }], { column_id: 'id' }).form).toBe('table');
    });

    it('rejects an id that is neither string nor number', () => {
      const err = formError([
        { data: 'ok', metadata: {} },
        { id: { x: 1 }, data: 'y' },
      ]);
      expect(err.param).toBe('content[1]');
      expect(err.message).toMatch(/"id" must be a string or a number/);
    });

    it('rejects metadata that is not an object', () => {
      expect(
        formError([
          { data: 'ok', metadata: {} },
          { data: 'y', metadata: [1] },
        ]).message,
      ).toMatch(/"metadata" must be an object/);
      expect(formError([{ data: 'ok', metadata: 'x' }]).param).toBe('content[0]');
    });

    it('rejects unknown keys in a document array', () => {
      const err = formError([
        { id: 1, data: 'a', metadata: { k: 1 } },
        { id: 2, data: 'b', title: 'x' },
      ]);
      expect(err.param).toBe('content[1]');
      expect(err.message).toMatch(/unexpected key "title"/);
    });

    it.each<[keyof TableColumnOptions]>([['column_to_embed'], ['column_id']])(
      'rejects %s with documents that are not flat rows',
      (param) => {
        const err = formError([{ id: '1', data: 'a', metadata: { k: 1 } }], { [param]: 'data' });
        expect(err.param).toBe(param);
      },
    );
  });

  describe('form errors', () => {
    it.each([null, 42, true, { data: 'x' }])('rejects content %p that is neither string nor array', (content) => {
      expect(formError(content).param).toBe('content');
    });

    it('rejects an empty array', () => {
      const err = formError([]);
      expect(err.param).toBe('content');
      expect(err.message).toMatch(/empty/);
    });

    it.each([
      ['a string', ['doc one', 'doc two']],
      ['null', [{ data: 'x' }, null]],
      ['an array', [{ data: 'x' }, [1]]],
    ])('rejects an element that is %s, naming its index', (_kind, content) => {
      const err = formError(content);
      expect(err.param).toBe(
        `content[${(content as unknown[]).findIndex((e) => typeof e !== 'object' || e === null || Array.isArray(e))}]`,
      );
      expect(err.message).toMatch(/must be an object/);
    });

    it('rejects a table with a nested value, naming the row', () => {
      const err = formError([
        { a: 1, b: 'x' },
        { a: 2, b: 'y' },
        { a: 3, b: { nested: true } },
      ]);
      expect(err.param).toBe('content[2]');
      expect(err.message).toMatch(/column "b" must be a string, number, boolean or null/);
    });

    it('rejects mixed documents and rows', () => {
      const err = formError([{ title: 'row' }, { data: 'doc', metadata: { a: 1 } }]);
      expect(err.param).toBe('content[1]');
      expect(err.message).toMatch(/table rows/);
    });

    it('rejects an empty row object', () => {
      expect(formError([{ a: 1 }, {}]).param).toBe('content[1]');
    });

    it('is a proper Error subclass', () => {
      const err = formError([]);
      expect(err).toBeInstanceOf(Error);
      expect(err.name).toBe('ContentFormError');
    });
  });

  describe('table', () => {
    const rows = [
      { sku: 'A-1', title: 'Red chair', price: 10, in_stock: true, note: null },
      { sku: 'B-2', title: 'Blue table', price: 25.5, in_stock: false, note: 'sale' },
    ];

    it('column_to_embed + column_id → data, id, metadata = remaining columns', () => {
      const parsed = parseRerankContent(rows, { column_to_embed: 'title', column_id: 'sku' });
      expect(parsed.form).toBe('table');
      expect(parsed.items).toEqual([
        { id: 'A-1', data: 'Red chair', metadata: { price: 10, in_stock: true, note: null } },
        { id: 'B-2', data: 'Blue table', metadata: { price: 25.5, in_stock: false, note: 'sale' } },
      ]);
    });

    it('only column_id → data = other columns as "key: value; …", metadata = other columns', () => {
      const parsed = parseRerankContent(rows, { column_id: 'sku' });
      expect(parsed.items).toEqual([
        {
          id: 'A-1',
          data: 'title: Red chair; price: 10; in_stock: true; note: ',
          metadata: { title: 'Red chair', price: 10, in_stock: true, note: null },
        },
        {
          id: 'B-2',
          data: 'title: Blue table; price: 25.5; in_stock: false; note: sale',
          metadata: { title: 'Blue table', price: 25.5, in_stock: false, note: 'sale' },
        },
      ]);
    });

    it('neither column option → id = row index, data = whole row as text, metadata = the row', () => {
      const parsed = parseRerankContent(rows);
      expect(parsed.items).toEqual([
        { id: '0', data: 'sku: A-1; title: Red chair; price: 10; in_stock: true; note: ', metadata: rows[0] },
        { id: '1', data: 'sku: B-2; title: Blue table; price: 25.5; in_stock: false; note: sale', metadata: rows[1] },
      ]);
      expect(parsed.form === 'table' && parsed.rows).toEqual(rows);
    });

    it('only column_to_embed → id = row index, data = that column, metadata = other columns', () => {
      const parsed = parseRerankContent(rows, { column_to_embed: 'title' });
      expect(parsed.items).toEqual([
        { id: '0', data: 'Red chair', metadata: { sku: 'A-1', price: 10, in_stock: true, note: null } },
        { id: '1', data: 'Blue table', metadata: { sku: 'B-2', price: 25.5, in_stock: false, note: 'sale' } },
      ]);
    });

    it('stringifies numeric ids and embedded values', () => {
      const parsed = parseRerankContent([{ n: 1, v: 2.5 }], { column_to_embed: 'v', column_id: 'n' });
      expect(parsed.items).toEqual([{ id: '1', data: '2.5', metadata: {} }]);
    });

    it('rows that also look like documents are a table when column options are given', () => {
      const content = [
        { id: 'r1', data: 'alpha' },
        { id: 'r2', data: 'beta' },
      ];
      expect(parseRerankContent(content).form).toBe('documents');
      const parsed = parseRerankContent(content, { column_id: 'id' });
      expect(parsed.form).toBe('table');
      expect(parsed.items[0]).toEqual({ id: 'r1', data: 'data: alpha', metadata: { data: 'alpha' } });
    });

    it('flat rows with keys beyond id/data/metadata are a table without options', () => {
      expect(parseRerankContent([{ id: 1, data: 'x', title: 't' }]).form).toBe('table');
      expect(
        parseRerankContent([
          { id: 1, data: 'x', title: 't' },
          { id: 2, data: 'y' },
        ]).form,
      ).toBe('table');
    });

    it('a first element shaped like a document makes it documents: a later flat element with other keys is an error on it', () => {
      const typo = formError([
        { id: 'a', data: 'x' },
        { id: 'b', text: 'y' },
      ]);
      expect(typo.param).toBe('content[1]');
      expect(typo.message).toMatch(/unexpected key "text"/);
      expect(formError([{ data: 'x' }, { data: 'y' }, { sku: 'c', title: 'z' }]).param).toBe('content[2]');
      // with column options the same flat array is a table
      expect(
        parseRerankContent(
          [
            { id: 'a', data: 'x' },
            { id: 'b', text: 'y' },
          ],
          { column_id: 'id' },
        ).form,
      ).toBe('table');
    });

    it.each<[keyof TableColumnOptions]>([['column_to_embed'], ['column_id']])(
      '%s naming a column no row has → error on that parameter',
      (param) => {
        const err = formError(rows, { [param]: 'colour' });
        expect(err.param).toBe(param);
        expect(err.message).toMatch(/"colour" is not a column/);
      },
    );

    it('a row missing the column (absent or null) → error naming the row', () => {
      const err = formError([{ sku: 'A', title: 'x' }, { sku: 'B' }], { column_to_embed: 'title' });
      expect(err.param).toBe('content[1]');
      expect(err.message).toMatch(/no value in column "title"/);
      expect(
        formError(
          [
            { sku: 'A', title: 'x' },
            { sku: null, title: 'y' },
          ],
          { column_id: 'sku' },
        ).param,
      ).toBe('content[1]');
    });

    it('keeps the row key order in the text and treats "__proto__" as an ordinary column', () => {
      const row = JSON.parse('{"b": 2, "__proto__": "p", "a": 1}') as Record<string, string | number>;
      const parsed = parseRerankContent([row], { column_id: 'a' });
      expect(parsed.items[0].data).toBe('b: 2; __proto__: p');
      expect(Object.keys(parsed.items[0].metadata)).toEqual(['b', '__proto__']);
      expect(Object.getPrototypeOf(parsed.items[0].metadata)).toBe(Object.prototype);
    });

    it('rowText renders null as an empty value', () => {
      expect(rowText({ a: null, b: false, c: 0 })).toBe('a: ; b: false; c: 0');
    });
  });
});
