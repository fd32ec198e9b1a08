import { Injectable } from '@nestjs/common';
import { DocumentReader, ReadDocument, UnreadableDocument } from '@app/chat/context/ports';
import { DocumentParser, ExtractedDocument, ExtractionError } from '../document-parser';
import { AUTO_CHUNKING } from '../kb-rules';

/** Chat's DocumentReader port over knowledge's parsers (PDFs from file_urls). */
@Injectable()
export class ParserDocumentReader extends DocumentReader {
  constructor(private readonly parser: DocumentParser) {
    super();
  }

  async readPdf(bytes: Buffer, filename: string): Promise<ReadDocument> {
    try {
      return await this.parser.extract(bytes, { mime: 'application/pdf', filename });
    } catch (err) {
      if (err instanceof ExtractionError) throw new UnreadableDocument(err.code, err.message);
      throw err;
    }
  }

  /** `doc` is what readPdf returned (an extracted document), cut with the knowledge bases' automatic chunking. */
  async fragments(doc: ReadDocument): Promise<{ page: number | null; text: string }[]> {
    const chunks = await this.parser.chunk(doc as ExtractedDocument, AUTO_CHUNKING);
    return chunks.map((c) => ({ page: c.page, text: c.text }));
  }
}
