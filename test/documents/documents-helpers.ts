import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
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

/** An SMTP server inside the test: every message it receives, raw. */
export async function startSmtp(): Promise<{
  port: number;
  messages: { to: string[]; raw: string }[];
  close(): Promise<void>;
}> {
  const messages: { to: string[]; raw: string }[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, done) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        messages.push({ to: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks).toString() });
        done();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return { port, messages, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

export async function waitFor(check: () => boolean, ms = 60_000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}
