import request from 'supertest';
import { pdftotextPages } from '@app/knowledge/parsers/pdf-text';
import { ADMIN_TOKEN } from '../support/test-app';

export { BUYER_A, BUYER_B, oneCStatement, SELLER, type PaymentOrder } from './one-c-statement';

export const op = (r: request.Test) => r.set('authorization', `Bearer ${ADMIN_TOKEN}`);

/** The text of a PDF as the knowledge base's parser reads it (poppler's pdftotext). */
export async function pdfText(pdf: Buffer): Promise<string> {
  const { pages } = await pdftotextPages(pdf, { path: 'pdftotext', memoryMb: 1024, timeoutMs: 30_000 });
  return pages.map((p) => p.text).join('\n');
}

export async function waitFor(check: () => boolean, ms = 60_000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

export { startSmtp } from '../support/smtp-server';
