/**
 * Nesting bounds for untrusted JSON and HTML, checked by scanning before a recursive consumer
 * (JSON.stringify, a DOM walk, Readability, turndown) sees the document: deep nesting costs those
 * consumers one stack frame (or more) per level.
 */
import { Parser } from 'htmlparser2';
import { ParseLimitError } from './parse-limit';

/** Throws ParseLimitError('nesting') when arrays/objects nest deeper than `max` (strings are skipped). */
export function assertJsonDepth(text: string, max: number): void {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) throw new ParseLimitError('nesting', `The JSON nests deeper than ${max} levels.`);
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
}

/**
 * Throws ParseLimitError('nesting') when elements nest deeper than `max`, as an HTML parser builds
 * the tree (htmlparser2's tokenizer: void elements and implied end tags close as they do there).
 */
export function assertHtmlDepth(html: string, max: number): void {
  let depth = 0;
  const parser = new Parser(
    {
      onopentag() {
        if (++depth > max) throw new ParseLimitError('nesting', `The HTML nests elements deeper than ${max} levels.`);
      },
      onclosetag() {
        depth--;
      },
    },
    { decodeEntities: false },
  );
  parser.end(html);
}
