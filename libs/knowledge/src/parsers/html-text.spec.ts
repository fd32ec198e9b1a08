import { ParseLimitError } from '@app/common/isolation/parse-limit';
import { htmlText } from './html-text';
import { extractHtml, READABILITY_MAX_CHARS } from './formats';

describe('htmlText (streaming HTML extraction)', () => {
  it('keeps headings, paragraphs, lists and tables; drops head, scripts, styles, navigation, footers and hidden elements', () => {
    const html =
      '<!doctype html><html><head><title>Field  guide</title><style>p{color:red}</style><script>var x = "<p>no</p>";</script></head>' +
      '<body><header><nav><a href="/">Home</a> | <a href="/login">Login</a></nav></header><main><article>' +
      '<h1>Steps</h1><p>First open the <b>lid</b>\n   carefully &amp; then remove the filter.</p>' +
      '<ul><li>Rinse it</li><li>Dry it</li></ul><div hidden>secret</div><span style="display: none">gone</span>' +
      '<table><tr><th>Part</th><th>Count</th></tr><tr><td>Filter</td><td>2</td></tr></table>' +
      '<pre>line one\n  indented two</pre><p>Close<br>the lid.</p></article></main>' +
      '<aside>related links</aside><footer>copyright</footer><form><button>Send</button></form></body></html>';
    expect(htmlText(html, 512)).toEqual({
      title: 'Field guide',
      text: [
        '# Steps',
        '',
        'First open the lid carefully & then remove the filter.',
        '',
        '- Rinse it',
        '- Dry it',
        '',
        'Part | Count',
        'Filter | 2',
        '',
        'line one\n  indented two',
        '',
        'Close',
        'the lid.',
      ].join('\n'),
    });
  });

  it('takes the first h1 as the title when there is no <title>', () => {
    expect(htmlText('<body><h1>Opening  hours</h1><p>Nine to five.</p><h1>Other</h1></body>', 512)).toEqual({
      title: 'Opening hours',
      text: '# Opening hours\n\nNine to five.\n\n# Other',
    });
  });

  it('bounds nesting in the same pass', () => {
    expect(() => htmlText('<div>'.repeat(600) + 'deep', 512)).toThrow(ParseLimitError);
  });

  it('extractHtml streams pages past the Readability limit and keeps their text', () => {
    const para = '<p>The harbour opens at dawn for the fishing fleet and closes at dusk.</p>';
    const html = `<html><head><title>Harbour</title><script>${'x();'.repeat(1000)}</script></head><body><nav>Menu</nav>${para.repeat(
      Math.ceil(READABILITY_MAX_CHARS / para.length) + 10,
    )}</body></html>`;
    const doc = extractHtml(html);
    expect(doc.title).toBe('Harbour');
    expect(doc.pages).toHaveLength(1);
    const paragraphs = doc.pages[0].text.split('\n\n');
    expect(paragraphs.length).toBe(Math.ceil(READABILITY_MAX_CHARS / para.length) + 10);
    expect(new Set(paragraphs)).toEqual(
      new Set(['The harbour opens at dawn for the fishing fleet and closes at dusk.']),
    );
  });
});
