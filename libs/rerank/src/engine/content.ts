/**
 * Recognises the form of rerank `content` (text, documents or a table; docs/decisions/rerank-content-forms.md)
 * and normalises it to items to embed.
 *
 * Forms:
 *   - text       a non-blank string → chunks (see ./chunking): id `chunk-<index>` (0-based),
 *                data = chunk text, metadata `{ chunk_index, start, end }` (code-point offsets).
 *   - documents  an array whose every element is an object with a string `data`, optional `id`
 *                (string or finite number, stringified; default: the element's index as a string),
 *                optional `metadata` (a JSON object; default `{}`) and no other keys.
 *   - table      an array of flat objects (rows): every value is a string, number, boolean or null.
 *
 * An array whose elements all have `data` and only id/data/metadata keys is treated as documents
 * (and validated as such: `[{ "data": 5 }]` is an error, not a table), unless `column_to_embed` or
 * `column_id` is given and the elements are flat, which makes it a table. Without column options,
 * an array whose FIRST element has that document shape is validated as documents too, so a later
 * element with other keys (`[{id, data}, {id, text}]`) is an error on it, not a table. Anything else is rejected with
 * a {@link ContentFormError} whose `param` points at the culprit (`content`, `content[3]`,
 * `column_to_embed`, `column_id`).
 *
 * Table rules (rows keep their given key order; a row's "text" is `key: value; key2: value2` over
 * the chosen columns in that order, null rendered as an empty value):
 *   1. column_to_embed + column_id: data = String(row[column_to_embed]), id = String(row[column_id]),
 *      metadata = all other columns.
 *   2. only column_id: id = String(row[column_id]), data = text of all other columns,
 *      metadata = all other columns.
 *   3. neither: id = row index as a string, data = text of the whole row, metadata = the whole row.
 *   4. only column_to_embed: id = row index as a string, data = String(row[column_to_embed]),
 *      metadata = all other columns.
 * A named column that no row has → error on that parameter; a row without it (absent or null) →
 * error on `content[i]`. Empty rows (`{}`) are rejected. Duplicate ids are allowed.
 */
import { chunkText } from '@app/retrieval/chunking';

export type ContentForm = 'text' | 'documents' | 'table';

export type CellValue = string | number | boolean | null;
export type TableRow = Record<string, CellValue>;

export interface RerankItem {
  id: string;
  /** the text that is embedded and returned as `data` */
  data: string;
  metadata: Record<string, unknown>;
}

/** Column options, named like the request fields. null / undefined = not given. */
export interface TableColumnOptions {
  column_to_embed?: string | null;
  column_id?: string | null;
}

export type ParsedContent =
  | { form: 'text'; text: string; items: RerankItem[] }
  | { form: 'documents'; items: RerankItem[] }
  | { form: 'table'; rows: TableRow[]; items: RerankItem[] };

export class ContentFormError extends Error {
  constructor(
    readonly param: string,
    message: string,
  ) {
    super(message);
    this.name = 'ContentFormError';
  }
}

const DOCUMENT_KEYS = new Set(['id', 'data', 'metadata']);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function isCell(value: unknown): value is CellValue {
  return value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

/** Object with own keys copied by defineProperty, so a "__proto__" key stays an ordinary key. */
function pick(source: Record<string, unknown>, keep: (key: string) => boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(source)) {
    if (keep(key))
      Object.defineProperty(out, key, { value: source[key], enumerable: true, writable: true, configurable: true });
  }
  return out;
}

function cellText(value: CellValue): string {
  return value === null ? '' : String(value);
}

/** `key: value; key2: value2` over the row's keys (in order) accepted by `keep`. */
export function rowText(row: TableRow, keep: (key: string) => boolean = () => true): string {
  const parts: string[] = [];
  for (const key of Object.keys(row)) {
    if (keep(key)) parts.push(`${key}: ${cellText(row[key])}`);
  }
  return parts.join('; ');
}

function looksLikeDocument(element: Record<string, unknown>): boolean {
  return 'data' in element && Object.keys(element).every((key) => DOCUMENT_KEYS.has(key));
}

/** Why `element` is not a document, or null when it is one. */
function documentProblem(element: Record<string, unknown>): string | null {
  for (const key of Object.keys(element)) {
    if (!DOCUMENT_KEYS.has(key)) return `unexpected key "${key}" (a document has only id, data and metadata)`;
  }
  if (!('data' in element)) return 'a document needs a string "data"';
  if (typeof element.data !== 'string') return `"data" must be a string, got ${kindOf(element.data)}`;
  if ('id' in element) {
    const id = element.id;
    if (!(typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id))))
      return `"id" must be a string or a number, got ${kindOf(id)}`;
  }
  if ('metadata' in element && !isPlainObject(element.metadata))
    return `"metadata" must be an object, got ${kindOf(element.metadata)}`;
  return null;
}

/** Why `element` is not a flat table row, or null when it is one. */
function rowProblem(element: Record<string, unknown>): string | null {
  const keys = Object.keys(element);
  if (keys.length === 0) return 'a table row must have at least one column';
  for (const key of keys) {
    if (!isCell(element[key]))
      return `column "${key}" must be a string, number, boolean or null in a table row, got ${kindOf(element[key])}`;
  }
  return null;
}

function given(option: string | null | undefined): option is string {
  return option !== null && option !== undefined;
}

export function parseRerankContent(content: unknown, options: TableColumnOptions = {}): ParsedContent {
  const hasColumns = given(options.column_to_embed) || given(options.column_id);
  if (typeof content === 'string') {
    rejectColumns(options, 'plain text');
    if (content.trim().length === 0) throw new ContentFormError('content', 'content must not be empty');
    const items = chunkText(content).map((chunk) => ({
      id: `chunk-${chunk.index}`,
      data: chunk.text,
      metadata: { chunk_index: chunk.index, start: chunk.start, end: chunk.end },
    }));
    return { form: 'text', text: content, items };
  }
  if (!Array.isArray(content)) {
    throw new ContentFormError('content', `content must be a string or an array, got ${kindOf(content)}`);
  }
  if (content.length === 0) throw new ContentFormError('content', 'content must not be an empty array');

  const elements: Record<string, unknown>[] = [];
  content.forEach((element: unknown, i) => {
    if (!isPlainObject(element)) {
      throw new ContentFormError(
        `content[${i}]`,
        `content[${i}] must be an object (a document {id, data, metadata} or a table row), got ${kindOf(element)}`,
      );
    }
    elements.push(element);
  });

  const allRows = elements.every((e) => rowProblem(e) === null);
  // Only id/data/metadata keys and a `data` key: meant as documents, so validate as documents.
  // Without column options, a first element shaped like a document also means documents, so
  // `[{id, data}, {id, text}]` is a 400 on content[1] rather than a silently re-read table.
  const meantAsDocuments = elements.every(looksLikeDocument) || (!hasColumns && looksLikeDocument(elements[0]));

  if (meantAsDocuments && !(hasColumns && allRows)) {
    const at = elements.findIndex((e) => documentProblem(e) !== null);
    if (at >= 0) throw new ContentFormError(`content[${at}]`, `content[${at}]: ${documentProblem(elements[at])}`);
    rejectColumns(options, 'documents');
    return { form: 'documents', items: elements.map(toDocumentItem) };
  }
  if (allRows) return parseTable(elements as TableRow[], options);

  // Mixed or malformed: judge by what the first element looks like.
  const intendedDocuments = looksLikeDocument(elements[0]);
  const problemOf = intendedDocuments ? documentProblem : rowProblem;
  const at = elements.findIndex((e) => problemOf(e) !== null);
  const form = intendedDocuments ? 'documents (like content[0])' : 'flat table rows (like content[0])';
  throw new ContentFormError(
    `content[${at}]`,
    `content[${at}]: ${problemOf(elements[at])}; all elements must be ${form}`,
  );
}

function rejectColumns(options: TableColumnOptions, form: string): void {
  if (given(options.column_to_embed)) {
    throw new ContentFormError(
      'column_to_embed',
      `column_to_embed applies to tabular content only, but content is ${form}`,
    );
  }
  if (given(options.column_id)) {
    throw new ContentFormError('column_id', `column_id applies to tabular content only, but content is ${form}`);
  }
}

function toDocumentItem(element: Record<string, unknown>, index: number): RerankItem {
  const id = element.id;
  return {
    id: typeof id === 'string' || typeof id === 'number' ? String(id) : String(index),
    data: element.data as string,
    metadata: isPlainObject(element.metadata) ? element.metadata : {},
  };
}

function checkColumn(rows: readonly TableRow[], column: string, param: 'column_to_embed' | 'column_id'): void {
  if (!rows.some((row) => Object.prototype.hasOwnProperty.call(row, column))) {
    throw new ContentFormError(param, `${param} "${column}" is not a column of any row`);
  }
  rows.forEach((row, i) => {
    if (!Object.prototype.hasOwnProperty.call(row, column) || row[column] === null) {
      throw new ContentFormError(`content[${i}]`, `content[${i}] has no value in column "${column}" (${param})`);
    }
  });
}

function parseTable(rows: TableRow[], options: TableColumnOptions): ParsedContent {
  const embedColumn = given(options.column_to_embed) ? options.column_to_embed : null;
  const idColumn = given(options.column_id) ? options.column_id : null;
  if (embedColumn !== null) checkColumn(rows, embedColumn, 'column_to_embed');
  if (idColumn !== null) checkColumn(rows, idColumn, 'column_id');

  const items = rows.map((row, index): RerankItem => {
    const id = idColumn !== null ? cellText(row[idColumn]) : String(index);
    if (embedColumn !== null) {
      // column_to_embed given: that column is the data, column_id (else the row index) the id
      return { id, data: cellText(row[embedColumn]), metadata: pick(row, (k) => k !== embedColumn && k !== idColumn) };
    }
    if (idColumn !== null) {
      // only column_id: the other columns are the data, as "key: value; …"
      const keep = (k: string): boolean => k !== idColumn;
      return { id, data: rowText(row, keep), metadata: pick(row, keep) };
    }
    // neither: the row index is the id, the whole row the data
    return { id, data: rowText(row), metadata: pick(row, () => true) };
  });
  return { form: 'table', rows, items };
}
