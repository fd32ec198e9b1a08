import { Injectable, Logger } from '@nestjs/common';
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppConfig } from '@app/config';
import { ExtractionError } from '../document-parser';
import { boundedTool } from './bounded-tool';
import { normalizeText } from './normalize-text';

/** Languages OCR reads, those of them whose data is installed. */
const LANGUAGES = ['eng', 'rus'];
/** Rendering resolution of a page: enough for body text, a few MB of pixels per page. */
const DPI = 200;
const PROBE_TIMEOUT_MS = 10_000;
const MAX_OUTPUT_BYTES = 16 * 1024 * 1024;

export const OCR_INSTALL_HINT =
  'install tesseract-ocr (with tesseract-ocr-eng and tesseract-ocr-rus) and poppler-utils on the server, or set TESSERACT_PATH and PDFTOPPM_PATH';

/** Whether this replica can OCR, and with what. */
export type OcrTools =
  { available: true; tesseract: string; pdftoppm: string; languages: string } | { available: false; reason: string };

/**
 * OCR of PDFs without a text layer: pages rendered with poppler's `pdftoppm`, each read by
 * `tesseract` — child processes, never the event loop or a parser worker — within a page limit,
 * one wall-time limit per document (a process past it is killed) and a memory cap per process (the
 * tools read untrusted PDFs too), in a temporary directory removed afterwards. The tools are probed
 * once per process (a bare name runs from PATH).
 */
@Injectable()
export class PdfOcr {
  private readonly log = new Logger('OCR');
  private tools?: Promise<OcrTools>;

  constructor(private readonly config: AppConfig) {}

  /** The tools, or why OCR is not available here (turned off, not installed, no language data). */
  available(): Promise<OcrTools> {
    this.tools ??= this.probe();
    return this.tools;
  }

  /**
   * Text of each page of `pdf`, read by OCR. Throws ExtractionError: parse_limit_exceeded past the
   * page or time limit (the time limit retryable: load can cause it), parse_error if a tool fails.
   */
  async recognize(pdf: Buffer): Promise<{ page: number; text: string }[]> {
    const tools = await this.available();
    if (!tools.available) throw new ExtractionError('no_text_layer', `OCR is not available: ${tools.reason}.`);
    const { maxPages, timeoutMs } = this.config.ocr;
    const deadline = Date.now() + timeoutMs;
    const dir = await mkdtemp(join(tmpdir(), 'gw-ocr-'));
    try {
      await writeFile(join(dir, 'document.pdf'), pdf);
      // one page past the limit, to tell a document at the limit from a longer one
      const args = ['-r', String(DPI), '-png', '-gray', '-f', '1', '-l', String(maxPages + 1)];
      const render = await this.run(tools.pdftoppm, [...args, join(dir, 'document.pdf'), join(dir, 'page')], deadline);
      // poppler reports a page too large for the memory cap and carries on with a broken image
      if (/out of memory/i.test(render.stderr))
        throw new ExtractionError(
          'parse_limit_exceeded',
          `Rendering the PDF's pages for OCR needs more than ${this.config.ocr.memoryMb} MB (OCR_MEMORY_MB).`,
        );
      const images = await renderedPages(dir);
      if (images.length > maxPages)
        throw new ExtractionError(
          'parse_limit_exceeded',
          `The PDF has more than ${maxPages} pages without a text layer; OCR reads at most ${maxPages} (OCR_MAX_PAGES).`,
        );
      const pages: { page: number; text: string }[] = [];
      for (const image of images) {
        const args = [join(dir, image.file), '-', '-l', tools.languages];
        const { stdout: text } = await this.run(tools.tesseract, args, deadline);
        pages.push({ page: image.page, text: normalizeText(text).trim() });
        await rm(join(dir, image.file), { force: true });
      }
      return pages;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  /** One tool run, killed at the document's deadline; its output. */
  private run(file: string, args: string[], deadline: number): Promise<{ stdout: string; stderr: string }> {
    const timeout = deadline - Date.now();
    const { timeoutMs, memoryMb } = this.config.ocr;
    const limit = () =>
      new ExtractionError(
        'parse_limit_exceeded',
        `OCR of the PDF did not finish in ${timeoutMs} ms (OCR_TIMEOUT_MS); it was stopped.`,
        true,
      );
    if (timeout <= 0) return Promise.reject(limit());
    // bounded by itself: memory cap, own time limit, and killed with this process (bounded-tool.ts)
    const capped = boundedTool(file, args, memoryMb, timeout);
    return new Promise((resolve, reject) => {
      execFile(
        '/bin/sh',
        capped,
        {
          timeout,
          killSignal: 'SIGKILL',
          maxBuffer: MAX_OUTPUT_BYTES,
          encoding: 'utf8',
        },
        (err, stdout, stderr) => {
          if (!err) return resolve({ stdout, stderr });
          if (err.killed && err.code !== 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER') return reject(limit());
          const detail = (stderr.trim().split('\n').pop() ?? '') || err.message;
          reject(new ExtractionError('parse_error', `OCR could not read the PDF: ${detail}`));
        },
      );
    });
  }

  private async probe(): Promise<OcrTools> {
    const cfg = this.config.ocr;
    if (!cfg.enabled)
      return {
        available: false,
        reason: `it is turned off on this server (OCR_ENABLED=false); set OCR_ENABLED=true and ${OCR_INSTALL_HINT}`,
      };
    const tesseract = cfg.tesseractPath ?? 'tesseract';
    const pdftoppm = cfg.pdftoppmPath ?? 'pdftoppm';
    const found = { tesseract: await runs(tesseract), pdftoppm: await runs(pdftoppm) };
    if (!found.tesseract || !found.pdftoppm) {
      const missing = [found.tesseract ? null : 'tesseract', found.pdftoppm ? null : 'pdftoppm']
        .filter((n) => n !== null)
        .join(' and ');
      return { available: false, reason: `${missing} not found; ${OCR_INSTALL_HINT}` };
    }
    const languages = await listLanguages(tesseract).catch((err: Error): string[] => {
      this.log.warn(`tesseract --list-langs failed: ${err.message}`);
      return [];
    });
    const usable = LANGUAGES.filter((l) => languages.includes(l));
    if (usable.length === 0)
      return { available: false, reason: `tesseract has no English or Russian language data; ${OCR_INSTALL_HINT}` };
    this.log.log(`OCR available: ${tesseract} (${usable.join('+')}), ${pdftoppm}`);
    return { available: true, tesseract, pdftoppm, languages: usable.join('+') };
  }
}

/** The rendered page images of `dir` (page-1.png or page-01.png …), in page order. */
async function renderedPages(dir: string): Promise<{ file: string; page: number }[]> {
  const files = await readdir(dir);
  return files
    .map((file) => ({ file, m: /^page-(\d+)\.png$/.exec(file) }))
    .filter((f): f is { file: string; m: RegExpExecArray } => f.m !== null)
    .map((f) => ({ file: f.file, page: Number(f.m[1]) }))
    .sort((a, b) => a.page - b.page);
}

/** Whether `file` runs (`-v`: its version); execFile finds a bare name on PATH. */
function runs(file: string): Promise<boolean> {
  return new Promise((resolve) => {
    execFile(file, ['-v'], { timeout: PROBE_TIMEOUT_MS, killSignal: 'SIGKILL' }, (err) => resolve(!err));
  });
}

function listLanguages(tesseract: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    execFile(
      tesseract,
      ['--list-langs'],
      { timeout: PROBE_TIMEOUT_MS, killSignal: 'SIGKILL', encoding: 'utf8' },
      (err, stdout, stderr) => {
        if (err) return reject(err);
        // the list goes to stdout or stderr depending on the version; its first line is a heading
        resolve(
          `${stdout}\n${stderr}`
            .split('\n')
            .map((l) => l.trim())
            .filter((l) => /^[a-z_]+$/i.test(l)),
        );
      },
    );
  });
}
