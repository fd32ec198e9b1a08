/**
 * Deterministic documents of a given size for the ingestion bench: HTML (a web page with head,
 * scripts, styles, navigation, article sections, lists and tables), plain text, Markdown, CSV, JSON,
 * PDF (pdf-lib, Helvetica text pages) and DOCX (the `docx` package: headings, paragraphs, a table,
 * and an embedded PNG that takes most of the file, as in real documents of that size).
 */
'use strict';
const { deflateSync } = require('node:zlib');
const { words: pseudoWords } = require('./lib');

const MB_ = 1_000_000;

const VOCABULARY = (
  'harbour ledger invoice turbine meadow lantern quartz orbit cedar signal velvet copper prairie beacon marble ' +
  'thunder compass saffron glacier anchor falcon emerald canyon orchard pilot summit willow'
).split(' ');

const words = (seed, n) => pseudoWords(seed, n, VOCABULARY, 89);

/** Sentences of about `n` words, capitalised, with full stops. */
function prose(seed, n) {
  const w = words(seed, n).split(' ');
  const out = [];
  for (let i = 0; i < w.length; i += 12) {
    const s = w.slice(i, i + 12).join(' ');
    out.push(s[0].toUpperCase() + s.slice(1) + '.');
  }
  return out.join(' ');
}

/** Appends parts from `next(i)` while the total stays below `bytes`; `head` and `tail` framed around. */
function fill(bytes, head, tail, next) {
  const parts = [head];
  let size = Buffer.byteLength(head) + Buffer.byteLength(tail);
  for (let i = 0; ; i++) {
    const part = next(i);
    const n = Buffer.byteLength(part);
    if (size + n > bytes) break;
    parts.push(part);
    size += n;
  }
  parts.push(tail);
  return Buffer.from(parts.join(''));
}

function html(bytes, seed = 1) {
  const head =
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Field operations handbook</title>' +
    `<style>${'.c{color:#333;margin:0 auto}'.repeat(200)}</style>` +
    `<script>${'window.dataLayer=window.dataLayer||[];'.repeat(200)}</script></head><body>` +
    '<header><nav><a href="/">Home</a> | <a href="/docs">Docs</a> | <a href="/login">Login</a></nav></header><main><article>';
  const tail = '</article></main><footer>Copyright footer text</footer></body></html>';
  return fill(bytes, head, tail, (i) => {
    const s = seed * 1_000_003 + i;
    return (
      `<section id="s${i}"><h2>Section ${i} ${words(s, 3)}</h2>` +
      `<p class="c">${prose(s + 1, 90)}</p><p>${prose(s + 2, 70)} <a href="/x${i}">${words(s + 3, 2)}</a> <b>${words(s + 4, 3)}</b>.</p>` +
      `<ul><li>${prose(s + 5, 12)}</li><li>${prose(s + 6, 12)}</li><li>${prose(s + 7, 12)}</li></ul>` +
      (i % 5 === 0
        ? `<table><tr><th>Item</th><th>Value</th></tr><tr><td>${words(s + 8, 2)}</td><td>${i}</td></tr></table>`
        : '') +
      `<div class="ad"><script>track(${i})</script><span style="display:none">hidden ${i}</span></div></section>\n`
    );
  });
}

function text(bytes, seed = 2) {
  return fill(bytes, '', '', (i) => `${prose(seed * 1_000_003 + i, 100)}\n\n`);
}

function markdown(bytes, seed = 3) {
  return fill(bytes, '# Field operations handbook\n\n', '', (i) => {
    const s = seed * 1_000_003 + i;
    return `## Section ${i}\n\n${prose(s, 80)}\n\n- ${prose(s + 1, 10)}\n- ${prose(s + 2, 10)}\n\n`;
  });
}

function csv(bytes, seed = 4) {
  return fill(bytes, 'id,name,city,notes\n', '', (i) => {
    const s = seed * 1_000_003 + i;
    return `${i},${words(s, 2)},${words(s + 1, 1)},"${prose(s + 2, 14)}"\n`;
  });
}

function json(bytes, seed = 5) {
  return fill(bytes, '[', '{"id":-1}]', (i) => {
    const s = seed * 1_000_003 + i;
    return `{"id":${i},"title":"${words(s, 4)}","body":"${prose(s + 1, 40)}"},`;
  });
}

/** A PDF of Helvetica text pages (50 lines each) whose size is just under `bytes`. */
async function pdf(bytes, seed = 6) {
  const { PDFDocument, StandardFonts } = require('pdf-lib');
  const make = async (pages) => {
    const doc = await PDFDocument.create();
    doc.setTitle('Field operations handbook');
    const font = await doc.embedFont(StandardFonts.Helvetica);
    for (let p = 0; p < pages; p++) {
      const page = doc.addPage([595, 842]);
      const w = words(seed * 1_000_003 + p, 50 * 11).split(' ');
      for (let line = 0; line < 50; line++)
        page.drawText(w.slice(line * 11, line * 11 + 11).join(' '), { x: 40, y: 800 - line * 15, size: 10, font });
    }
    return Buffer.from(await doc.save());
  };
  const sample = await make(20);
  let pages = Math.floor((bytes / sample.length) * 20 * 0.98);
  for (;;) {
    const out = await make(pages);
    if (out.length <= bytes) return out;
    pages = Math.floor(pages * 0.97);
  }
}

/** A valid PNG of `width` × `height` RGB noise (incompressible, like a photo). */
function png(width, height, seed) {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (buf) => {
    let c = 0xffffffff;
    for (const b of buf) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type, data) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type), data]);
    const sum = Buffer.alloc(4);
    sum.writeUInt32BE(crc(body));
    return Buffer.concat([len, body, sum]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = 2;
  const raw = Buffer.alloc((width * 3 + 1) * height);
  let x = seed | 1;
  for (let i = 0; i < raw.length; i++) {
    if (i % (width * 3 + 1) === 0) continue;
    // xorshift32
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    raw[i] = x & 0xff;
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw, { level: 1 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/**
 * A DOCX just under `bytes`: about `textBytes` of text (headings, paragraphs, a table — a long
 * report) and one embedded photo-like PNG that takes the rest, as in real documents of that size
 * (10 MB of zipped text alone would be some 40 MB of text).
 */
async function docx(bytes, seed = 7, textBytes = Math.min(3 * MB_, bytes / 3)) {
  const d = require('docx');
  const section = (i) => {
    const s = seed * 1_000_003 + i;
    return [`Section ${i} ${words(s, 3)}`, prose(s + 1, 90), prose(s + 2, 70)];
  };
  const perSection = section(0).join('\n').length;
  const sections = Math.max(1, Math.floor(textBytes / perSection));
  const make = async (imageBytes) => {
    const children = [new d.Paragraph({ text: 'Field operations handbook', heading: d.HeadingLevel.HEADING_1 })];
    for (let i = 0; i < sections; i++) {
      const [heading, p1, p2] = section(i);
      children.push(new d.Paragraph({ text: heading, heading: d.HeadingLevel.HEADING_2 }));
      children.push(new d.Paragraph({ children: [new d.TextRun(p1)] }));
      children.push(new d.Paragraph({ children: [new d.TextRun(p2)] }));
    }
    if (imageBytes > 0) {
      const side = Math.max(16, Math.floor(Math.sqrt(imageBytes / 3)));
      children.push(
        new d.Paragraph({
          children: [
            new d.ImageRun({ type: 'png', data: png(side, side, seed), transformation: { width: 400, height: 400 } }),
          ],
        }),
      );
    }
    children.push(
      new d.Table({
        rows: [0, 1, 2].map(
          (r) =>
            new d.TableRow({
              children: [0, 1].map(
                (c) => new d.TableCell({ children: [new d.Paragraph(r === 0 ? `Column ${c}` : words(r * 7 + c, 2))] }),
              ),
            }),
        ),
      }),
    );
    return d.Packer.toBuffer(new d.Document({ sections: [{ children }] }));
  };
  const textOnly = await make(0);
  let image = Math.max(0, bytes - textOnly.length - 64 * 1024);
  for (;;) {
    const out = await make(image);
    if (out.length <= bytes) return out;
    image = Math.floor(image * 0.97);
  }
}

const MAKERS = { html, text, markdown, csv, json, pdf, docx };
const FILES = {
  html: ['page.html', 'text/html'],
  text: ['notes.txt', 'text/plain'],
  markdown: ['guide.md', 'text/markdown'],
  csv: ['table.csv', 'text/csv'],
  json: ['records.json', 'application/json'],
  pdf: ['handbook.pdf', 'application/pdf'],
  docx: ['handbook.docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
};

/** `{ kind, name, type, bytes }` of `size` bytes at most. */
async function makeDocument(kind, size, seed) {
  const bytes = await MAKERS[kind](size, seed);
  const [name, type] = FILES[kind];
  return { kind, name, type, bytes };
}

module.exports = { makeDocument, KINDS: Object.keys(MAKERS) };
