import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import { AddressInfo } from 'node:net';

/** Receivers of alert deliveries inside the tests: a webhook / Telegram Bot API endpoint and an SMTP server. */
import { startSmtp } from '../support/smtp-server';
import { waitFor as pollUntil } from '../support/until';

export { startSmtp };

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/**
 * An HTTP receiver inside the test: records every request; `/flaky…` paths answer 500 on their first
 * call, `/redirect-private…` paths redirect to a private address.
 */
export async function startReceiver(): Promise<{ url: string; got: Received[]; close(): Promise<void> }> {
  const got: Received[] = [];
  const failedOnce = new Set<string>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '';
      got.push({ path, headers: req.headers, body: Buffer.concat(chunks) });
      if (path.startsWith('/redirect-private')) {
        res.writeHead(302, { location: 'http://10.1.2.3/hook' }); // outside OUTBOUND_ALLOW_CIDRS
        res.end();
        return;
      }
      const fail = path.startsWith('/flaky') && !failedOnce.has(path);
      if (fail) failedOnce.add(path);
      res.writeHead(fail ? 500 : 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ok: !fail }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    got,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** support/until's waitFor, polling every 50 ms (receivers answer fast). */
export const waitFor = (check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> =>
  pollUntil(check, ms, 50);
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** RFC 2047 encoded words (`=?UTF-8?B?…?=`, `=?UTF-8?Q?…?=`) of a header value, decoded. */
function decodeWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?') // whitespace between adjacent encoded words is not text
    .replace(/=\?([^?]+)\?([BbQq])\?([^?]*)\?=/g, (_m, charset: string, enc: string, data: string) => {
      const bytes =
        enc.toUpperCase() === 'B'
          ? Buffer.from(data, 'base64')
          : Buffer.from(
              data
                .replace(/_/g, ' ')
                .replace(/=([0-9A-Fa-f]{2})/g, (_h, hex: string) => String.fromCharCode(parseInt(hex, 16))),
              'latin1',
            );
      return new TextDecoder(charset).decode(bytes);
    });
}

/** The subject and plain text of a raw single-part message (as nodemailer writes one), decoded. */
export function readMail(raw: string): { subject: string; text: string } {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
  const body = raw.slice(split + 4);
  const header = (name: string) =>
    head
      .split('\r\n')
      .find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`))
      ?.slice(name.length + 1)
      .trim() ?? '';
  const encoding = header('content-transfer-encoding').toLowerCase();
  const text =
    encoding === 'base64'
      ? Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8')
      : encoding === 'quoted-printable'
        ? Buffer.from(
            body
              .replace(/=\r\n/g, '')
              .replace(/=([0-9A-Fa-f]{2})/g, (_h, hex: string) => String.fromCharCode(parseInt(hex, 16))),
            'latin1',
          ).toString('utf8')
        : body;
  return { subject: decodeWords(header('subject')), text: text.replace(/\r\n/g, '\n').trimEnd() };
}

/** The environment that points a test gateway's alert deliveries at these receivers. */
export function alertDeliveryEnv(smtpPort: number, telegramUrl: string): Record<string, string> {
  return {
    OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
    ALERTS_EVAL_INTERVAL_MS: '200',
    ALERT_RETRY_BASE_MS: '100',
    SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
    MAIL_FROM: 'Gateway <gateway@example.com>',
    TELEGRAM_API_BASE: telegramUrl,
    REQUEST_LOG_FLUSH_MS: '50',
  };
}

/** A webhook receiver, a Telegram Bot API receiver and an SMTP server, and the gateway environment that points at them. */
export async function startAlertReceivers() {
  const hooks = await startReceiver();
  const telegram = await startReceiver();
  const smtp = await startSmtp();
  return {
    hooks,
    telegram,
    smtp,
    env: alertDeliveryEnv(smtp.port, telegram.url),
    async close(): Promise<void> {
      await hooks.close();
      await telegram.close();
      await smtp.close();
    },
  };
}

export type AlertReceivers = Awaited<ReturnType<typeof startAlertReceivers>>;
