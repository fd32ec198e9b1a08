import { bool, ConfigError, Env, int, str } from './readers';

/** Knowledge: OCR of scanned PDFs and how a PDF's text layer is read. */

/** OCR of PDFs without a text layer (tesseract + pdftoppm as child processes, in the ingestion step) */
export interface OcrEnv {
  /** OCR_ENABLED: false turns OCR off even where the tools are installed */
  enabled: boolean;
  /** pages of one document OCR reads at most; a longer scan fails with parse_limit_exceeded */
  maxPages: number;
  /** wall time of one document's OCR (rendering and recognition), its child processes killed past it */
  timeoutMs: number;
  /** address space of one tool process (pdftoppm or tesseract), MiB */
  memoryMb: number;
  /** TESSERACT_PATH / PDFTOPPM_PATH: the executables (unset: looked up on PATH) */
  tesseractPath: string | undefined;
  pdftoppmPath: string | undefined;
}

/** How a PDF's text layer is read */
export interface PdfTextEnv {
  /** PDF_TEXT_ENGINE: auto — poppler's pdftotext where it runs, else pdfjs; pdfjs — always pdfjs */
  engine: 'auto' | 'pdfjs';
  /** PDFTOTEXT_PATH: the executable (unset: looked up on PATH) */
  pdftotextPath: string | undefined;
}

export function ocr(env: Env): OcrEnv {
  return {
    enabled: bool(env, 'OCR_ENABLED', true),
    maxPages: int(env, 'OCR_MAX_PAGES', 50, 1, 10_000),
    timeoutMs: int(env, 'OCR_TIMEOUT_MS', 120_000, 100, 3_600_000),
    memoryMb: int(env, 'OCR_MEMORY_MB', 1024, 128, 65_536),
    tesseractPath: str(env, 'TESSERACT_PATH'),
    pdftoppmPath: str(env, 'PDFTOPPM_PATH'),
  };
}

export function pdfText(env: Env): PdfTextEnv {
  const engine = str(env, 'PDF_TEXT_ENGINE') ?? 'auto';
  if (engine !== 'auto' && engine !== 'pdfjs')
    throw new ConfigError(`PDF_TEXT_ENGINE must be auto or pdfjs, got "${engine}"`);
  return { engine, pdftotextPath: str(env, 'PDFTOTEXT_PATH') };
}
