/**
 * Text of an HTML document in one streaming pass of htmlparser2's tokenizer, without building a
 * DOM: memory stays proportional to the text kept, not to the markup (a DOM of a 9 MB page takes
 * over a gigabyte). Skips what is not content (head except its title, script, style, navigation,
 * forms, asides, footers, embedded media, hidden elements) and keeps the structure a reader and the
 * chunker need: headings as Markdown `#` lines, paragraphs and blocks separated by a blank line,
 * list items as `- ` lines, table rows as lines of cells joined by ` | `, preformatted text as it is.
 * Element nesting is bounded in the same pass (as assertHtmlDepth bounds it).
 */
import { Parser } from 'htmlparser2';
import { ParseLimitError } from '@app/common/isolation/parse-limit';

/** Elements whose whole subtree is not content. */
const SKIPPED = new Set([
  'head',
  'script',
  'style',
  'noscript',
  'template',
  'nav',
  'aside',
  'footer',
  'form',
  'button',
  'select',
  'textarea',
  'iframe',
  'object',
  'embed',
  'svg',
  'math',
  'canvas',
  'video',
  'audio',
  'dialog',
]);

/** Elements that end the current line of text (and, apart from those in LINE_ONLY, the paragraph). */
const BLOCKS = new Set([
  'p',
  'div',
  'section',
  'article',
  'main',
  'blockquote',
  'pre',
  'ul',
  'ol',
  'li',
  'dl',
  'dt',
  'dd',
  'table',
  'thead',
  'tbody',
  'tfoot',
  'tr',
  'caption',
  'figure',
  'figcaption',
  'address',
  'details',
  'summary',
  'fieldset',
  'header',
  'hr',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
]);
/** Blocks that end a line but not a paragraph: list items and table rows stay together. */
const LINE_ONLY = new Set(['li', 'tr', 'dt', 'dd', 'thead', 'tbody', 'tfoot']);
const HEADING = /^h([1-6])$/;

export interface HtmlText {
  text: string;
  title?: string;
}

/** Whether an element's attributes hide it (`hidden`, `aria-hidden="true"`, `display: none`, a navigation role). */
function hidden(attrs: Record<string, string>): boolean {
  if ('hidden' in attrs) return true;
  if (attrs['aria-hidden'] === 'true') return true;
  const role = attrs.role;
  if (role === 'navigation' || role === 'banner' || role === 'contentinfo' || role === 'complementary') return true;
  const style = attrs.style;
  return style !== undefined && /display\s*:\s*none/i.test(style);
}

export function htmlText(html: string, maxDepth: number): HtmlText {
  const out: string[] = [];
  let line = '';
  /** a blank line is due before the next text */
  let paragraph = false;
  let skipDepth = 0;
  let preDepth = 0;
  let depth = 0;
  let inTitle = false;
  let title = '';
  let firstH1: string | null = null;
  let h1Text: string | null = null;
  let prefix = '';
  let cells = 0;
  const stack: (string | null)[] = [];

  const flush = (): void => {
    const t = preDepth > 0 ? line.replace(/^\n+|\s+$/g, '') : line.replace(/\s+/g, ' ').trim();
    line = '';
    if (t) {
      if (paragraph && out.length > 0) out.push('');
      out.push(prefix + t);
      paragraph = false;
    }
    prefix = '';
    cells = 0;
  };

  const parser = new Parser(
    {
      onopentag(name, attrs) {
        if (++depth > maxDepth)
          throw new ParseLimitError('nesting', `The HTML nests elements deeper than ${maxDepth} levels.`);
        const inHead = skipDepth === 1 && stack[stack.length - 1] === 'head';
        if (name === 'title' && title === '' && (skipDepth === 0 || inHead)) {
          inTitle = true;
          stack.push(name);
          return;
        }
        if (skipDepth > 0 || SKIPPED.has(name) || hidden(attrs)) {
          skipDepth++;
          stack.push(name);
          return;
        }
        stack.push(name);
        if (name === 'br') {
          if (preDepth > 0) line += '\n';
          else flush();
          return;
        }
        if (name === 'td' || name === 'th') {
          if (cells++ > 0) line += ' | ';
          return;
        }
        if (!BLOCKS.has(name)) {
          if (name === 'img' && attrs.alt) line += ` ${attrs.alt} `;
          return;
        }
        flush();
        if (!LINE_ONLY.has(name)) paragraph = true;
        const h = HEADING.exec(name);
        if (h) {
          prefix = `${'#'.repeat(Number(h[1]))} `;
          if (h[1] === '1' && firstH1 === null) h1Text = '';
        } else if (name === 'li') prefix = '- ';
        else if (name === 'pre') preDepth++;
      },
      ontext(text) {
        if (inTitle) title += text;
        else if (skipDepth === 0) {
          line += text;
          if (h1Text !== null) h1Text += text;
        }
      },
      onclosetag(name) {
        depth--;
        stack.pop();
        if (inTitle && name === 'title') {
          inTitle = false;
          return;
        }
        if (skipDepth > 0) {
          skipDepth--;
          return;
        }
        if (!BLOCKS.has(name)) return;
        if (h1Text !== null && name === 'h1') {
          firstH1 = h1Text.replace(/\s+/g, ' ').trim();
          h1Text = null;
        }
        flush();
        if (name === 'pre') preDepth--;
        if (!LINE_ONLY.has(name)) paragraph = true;
      },
    },
    { decodeEntities: true },
  );
  parser.end(html);
  flush();
  const pageTitle = title.replace(/\s+/g, ' ').trim() || (firstH1 ?? '');
  return { text: out.join('\n'), ...(pageTitle ? { title: pageTitle } : {}) };
}
