/**
 * Text as it is stored: the same string on every database. Postgres refuses NUL in text and
 * SQLite keeps it, so control characters are removed here, before chunking, for every format:
 * line breaks become `\n` (CR LF, CR, vertical tab, form feed, U+2028/2029 line and paragraph
 * separators), tabs stay, every other C0/C1 control character is dropped, lone surrogates become
 * U+FFFD, and the result is in Unicode NFC (so a composed and a decomposed "é" are the same chunk).
 */
const LINE_BREAKS = /\r\n?|[\v\f\u2028\u2029\u0085]/g;
// eslint-disable-next-line no-control-regex -- control characters are exactly what is removed
const CONTROLS = /[\u0000-\u0008\u000e-\u001f\u007f-\u009f]/g;
const LONE_SURROGATES = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

export function normalizeText(text: string): string {
  return text.replace(LINE_BREAKS, '\n').replace(CONTROLS, '').replace(LONE_SURROGATES, '\uFFFD').normalize('NFC');
}

/**
 * Share of control characters (other than whitespace) in a sample of decoded text above which it
 * is binary data rather than text with a few stray control bytes (UTF-16 text read as UTF-8 is
 * about half NUL).
 */
export const MAX_CONTROL_SHARE = 0.1;

/** Whether decoded UTF-8 holds so many control characters that it is binary data, not text. */
export function looksBinary(text: string): boolean {
  const sample = text.slice(0, 64 * 1024);
  if (sample.length === 0) return false;
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is counted
  const controls = sample.match(/[\u0000-\u0008\u000e-\u001f\u007f]/g)?.length ?? 0;
  return controls / sample.length > MAX_CONTROL_SHARE;
}
