/** pdfjs-dist ships no types for its worker module; the parsers only hand it to pdfjs (see formats.ts). */
declare module 'pdfjs-dist/legacy/build/pdf.worker.mjs' {
  export const WorkerMessageHandler: unknown;
}
