import { readFileSync } from 'node:fs';
import fontkit from '@pdf-lib/fontkit';
import { PDFDocument, PDFFont, PDFPage, rgb } from 'pdf-lib';

/** A4 in points. */
export const PAGE = { width: 595.28, height: 841.89, margin: 42 };

const FONT_FILES = {
  regular: require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf'),
  bold: require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf'),
};
let fontBytes: { regular: Buffer; bold: Buffer } | null = null;

function fonts(): { regular: Buffer; bold: Buffer } {
  fontBytes ??= { regular: readFileSync(FONT_FILES.regular), bold: readFileSync(FONT_FILES.bold) };
  return fontBytes;
}

export interface TextStyle {
  size?: number;
  bold?: boolean;
  align?: 'left' | 'right' | 'center';
}

/**
 * One A4 page of a document drawn top-down: y grows downwards from the top margin, text is set in
 * DejaVu Sans (embedded, subset), which covers Cyrillic. A thin layer over pdf-lib for the two
 * document layouts.
 */
export class PdfSheet {
  private constructor(
    readonly doc: PDFDocument,
    private readonly page: PDFPage,
    private readonly regular: PDFFont,
    private readonly bold: PDFFont,
  ) {}

  static async create(title: string, createdAt: Date): Promise<PdfSheet> {
    const doc = await PDFDocument.create();
    doc.registerFontkit(fontkit);
    const f = fonts();
    const regular = await doc.embedFont(f.regular, { subset: true });
    const bold = await doc.embedFont(f.bold, { subset: true });
    doc.setTitle(title);
    doc.setCreationDate(createdAt);
    doc.setModificationDate(createdAt);
    doc.setProducer('model gateway');
    doc.setCreator('model gateway');
    const page = doc.addPage([PAGE.width, PAGE.height]);
    return new PdfSheet(doc, page, regular, bold);
  }

  width(text: string, style: TextStyle = {}): number {
    return (style.bold ? this.bold : this.regular).widthOfTextAtSize(text, style.size ?? 9);
  }

  /** Text whose top is at `y`, left-aligned at x (or right/centred within [x, x + w]). */
  text(text: string, x: number, y: number, style: TextStyle & { w?: number } = {}): void {
    const size = style.size ?? 9;
    const font = style.bold ? this.bold : this.regular;
    const tw = font.widthOfTextAtSize(text, size);
    const left =
      style.align === 'right' && style.w !== undefined
        ? x + style.w - tw
        : style.align === 'center' && style.w !== undefined
          ? x + (style.w - tw) / 2
          : x;
    this.page.drawText(text, { x: left, y: PAGE.height - y - size * 0.8, size, font, color: rgb(0, 0, 0) });
  }

  /** Lines of `text` broken at spaces to fit `w`. */
  wrap(text: string, w: number, style: TextStyle = {}): string[] {
    const out: string[] = [];
    for (const paragraph of text.split('\n')) {
      let line = '';
      for (const word of paragraph.split(/\s+/).filter(Boolean)) {
        const next = line ? `${line} ${word}` : word;
        if (line && this.width(next, style) > w) {
          out.push(line);
          line = word;
        } else line = next;
      }
      out.push(line);
    }
    return out;
  }

  /** Wrapped text from `y`; returns the y below it. */
  paragraph(text: string, x: number, y: number, w: number, style: TextStyle = {}): number {
    const size = style.size ?? 9;
    const lines = this.wrap(text, w, style);
    lines.forEach((l, i) => this.text(l, x, y + i * size * 1.3, { ...style, w }));
    return y + lines.length * size * 1.3;
  }

  line(x1: number, y1: number, x2: number, y2: number, thickness = 0.6): void {
    this.page.drawLine({
      start: { x: x1, y: PAGE.height - y1 },
      end: { x: x2, y: PAGE.height - y2 },
      thickness,
      color: rgb(0, 0, 0),
    });
  }

  rect(x: number, y: number, w: number, h: number, thickness = 0.6): void {
    this.page.drawRectangle({
      x,
      y: PAGE.height - y - h,
      width: w,
      height: h,
      borderWidth: thickness,
      borderColor: rgb(0, 0, 0),
    });
  }

  async bytes(): Promise<Buffer> {
    return Buffer.from(await this.doc.save({ useObjectStreams: false }));
  }
}
