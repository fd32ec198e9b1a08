/**
 * A PDF's text layer read by poppler's `pdftotext`, a child process of the parser worker: about five
 * times faster than pdfjs on text-dense PDFs and a few tens of MB of memory instead of a few hundred
 * (docs/decisions/pdf-text-pdftotext.md). The process gets the PDF on stdin, runs under an
 * address-space cap and a wall-time limit (killed past it), and writes the text with poppler's
 * `-htmlmeta` wrapper: the title from the document's metadata, then the text in one `<pre>` element,
 * a form feed after each page.
 */
import { execFile } from 'node:child_process';
import { boundedTool } from './bounded-tool';
import { Parser } from 'htmlparser2';
import { ExtractionError } from '../document-parser';

/** How a parser worker runs pdftotext (decided on the main thread, where the tool was probed). */
export interface PdfTextTool {
  /** the executable (a bare name runs from PATH) */
  path: string;
  /** address space of the process, MiB */
  memoryMb: number;
  /** wall time of the process; it is killed past it */
  timeoutMs: number;
}

/** Text a PDF may hold: past it the document fails with parse_limit_exceeded. */
const MAX_OUTPUT_BYTES = 128 * 1024 * 1024;

/** The tool could not read the document: the caller gives it to pdfjs, whose verdict stands. */
export class PdfTextToolFailed extends Error {}

/**
 * Pages and title of `bytes` by pdftotext. Throws ExtractionError parse_limit_exceeded past the time
 * limit (retryable: load can cause it) or the text limit; PdfTextToolFailed when the tool rejects
 * the file (damaged, encrypted) or cannot run.
 */
export async function pdftotextPages(
  bytes: Buffer,
  tool: PdfTextTool,
): Promise<{ pages: { page: number; text: string }[]; title?: string }> {
  const html = await run(tool, bytes);
  const { title, text } = readHtmlMeta(html);
  const parts = text.split('\f');
  // a form feed ends every page, so the piece after the last one is empty
  if (parts.length > 1 && parts[parts.length - 1].trim() === '') parts.pop();
  return {
    pages: parts.map((t, i) => ({ page: i + 1, text: tidyPageText(t) })),
    ...(title ? { title } : {}),
  };
}

/** The same spacing rules as the pdfjs path: no trailing blanks on a line, runs of blanks as one. */
export function tidyPageText(text: string): string {
  return text
    .replace(/[ \t]+\n/g, '\n')
    .replace(/[ \t]{2,}/g, ' ')
    .trim();
}

/** `<title>` and the `<pre>` text of pdftotext's -htmlmeta output, entities decoded. */
function readHtmlMeta(html: string): { title: string; text: string } {
  let inTitle = false;
  let inPre = false;
  let title = '';
  const text: string[] = [];
  const parser = new Parser(
    {
      onopentagname(name) {
        if (name === 'title') inTitle = true;
        else if (name === 'pre') inPre = true;
      },
      onclosetag(name) {
        if (name === 'title') inTitle = false;
        else if (name === 'pre') inPre = false;
      },
      ontext(data) {
        if (inTitle) title += data;
        else if (inPre) text.push(data);
      },
    },
    { decodeEntities: true },
  );
  parser.end(html);
  return { title: title.trim(), text: text.join('') };
}

function run(tool: PdfTextTool, bytes: Buffer): Promise<string> {
  // bounded by itself: memory cap, own time limit, and killed with this process (bounded-tool.ts)
  const args = boundedTool(tool.path, ['-q', '-enc', 'UTF-8', '-htmlmeta', '-', '-'], tool.memoryMb, tool.timeoutMs);
  return new Promise((resolve, reject) => {
    const child = execFile(
      '/bin/sh',
      args,
      { timeout: tool.timeoutMs, killSignal: 'SIGKILL', maxBuffer: MAX_OUTPUT_BYTES, encoding: 'utf8' },
      (err, stdout, stderr) => {
        if (!err) return resolve(stdout);
        const e = err as NodeJS.ErrnoException & { killed?: boolean };
        if (e.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER')
          return reject(
            new ExtractionError(
              'parse_limit_exceeded',
              `The PDF holds more than ${MAX_OUTPUT_BYTES / 1024 / 1024} MB of text; it is not indexed.`,
            ),
          );
        if (e.killed)
          return reject(
            new ExtractionError(
              'parse_limit_exceeded',
              `Reading the PDF's text took longer than ${tool.timeoutMs} ms and was stopped.`,
              true,
            ),
          );
        reject(new PdfTextToolFailed((stderr.trim().split('\n').pop() ?? '') || e.message));
      },
    );
    // the tool may stop reading early (a file it rejects): a broken pipe is its verdict, not ours
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(bytes);
  });
}

/** pdftotext's version line when `path` runs (`-v`), else null. */
export function pdftotextVersion(path: string): Promise<string | null> {
  return new Promise((resolve) => {
    execFile(path, ['-v'], { timeout: 10_000, killSignal: 'SIGKILL', encoding: 'utf8' }, (err, stdout, stderr) => {
      if (err) return resolve(null);
      const line = `${stdout}\n${stderr}`.split('\n').find((l) => /pdftotext version/i.test(l));
      resolve(line?.trim() ?? 'pdftotext');
    });
  });
}
