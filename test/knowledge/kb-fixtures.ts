/** Documents made in the test (never committed binaries): PDFs with pdf-lib, DOCX with docx. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Document, Packer, Paragraph, HeadingLevel } from 'docx';
import { PDFDocument, StandardFonts, rgb } from 'pdf-lib';

/** One page per entry, each page's sentences drawn as real text. */
export async function pdfWithPages(pages: string[][], title?: string): Promise<Buffer> {
  const doc = await PDFDocument.create();
  if (title) doc.setTitle(title);
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const lines of pages) {
    const page = doc.addPage([595, 842]);
    lines.forEach((line, i) => page.drawText(line, { x: 50, y: 780 - i * 20, size: 12, font }));
  }
  return Buffer.from(await doc.save());
}

/** A "scan": pages with only drawn shapes, no text layer. */
export async function pdfWithoutText(): Promise<Buffer> {
  const doc = await PDFDocument.create();
  for (let i = 0; i < 2; i++)
    doc.addPage([595, 842]).drawRectangle({ x: 50, y: 50, width: 400, height: 600, color: rgb(0.7, 0.7, 0.7) });
  return Buffer.from(await doc.save());
}

export async function docxWith(heading: string, paragraphs: string[]): Promise<Buffer> {
  const doc = new Document({
    sections: [
      {
        children: [
          new Paragraph({ text: heading, heading: HeadingLevel.HEADING_1 }),
          ...paragraphs.map((p) => new Paragraph(p)),
        ],
      },
    ],
  });
  return Packer.toBuffer(doc);
}

export const FILLER = [
  'The quarterly report covers revenue, costs and hiring across all regions.',
  'Our offices are open from nine to six on weekdays.',
  'The cafeteria serves lunch between noon and two.',
];

/**
 * A scan: each page's lines drawn as text, rendered to a picture with poppler's `pdftoppm`, and the
 * pictures alone placed on the pages of a new PDF (no text layer). Needs pdftoppm (poppler-utils).
 */
export async function scannedPdf(pages: string[][]): Promise<Buffer> {
  const source = await PDFDocument.create();
  const font = await source.embedFont(StandardFonts.Helvetica);
  for (const lines of pages) {
    const page = source.addPage([595, 842]);
    lines.forEach((line, i) => page.drawText(line, { x: 40, y: 770 - i * 30, size: 16, font }));
  }
  const dir = mkdtempSync(join(tmpdir(), 'kb-scan-'));
  try {
    writeFileSync(join(dir, 'source.pdf'), await source.save());
    execFileSync('pdftoppm', ['-r', '150', '-png', '-gray', join(dir, 'source.pdf'), join(dir, 'page')]);
    const scan = await PDFDocument.create();
    const images = readdirSync(dir)
      .filter((f) => f.endsWith('.png'))
      .sort();
    for (const file of images) {
      const image = await scan.embedPng(readFileSync(join(dir, file)));
      scan.addPage([595, 842]).drawImage(image, { x: 0, y: 0, width: 595, height: 842 });
    }
    return Buffer.from(await scan.save());
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A text of `paragraphs` distinct paragraphs (distinct per `seed`, so no chunk is reused across stores). */
export function distinctText(seed: string, paragraphs: number): string {
  const out: string[] = [];
  for (let i = 0; i < paragraphs; i++)
    out.push(
      `Section ${seed}-${i}. The ${seed} ledger line ${i} records shipment ${i * 7 + 3} of crate ${seed}${i} ` +
        `through harbour ${i % 13} with inspector ${seed.length + i} noting weight ${i * 11} kilograms and ` +
        `the seal number ${seed}-${i * 31} intact on arrival at warehouse ${i % 5}.`,
    );
  return out.join('\n\n');
}
