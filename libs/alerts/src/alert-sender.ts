import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import { createTransport, Transporter } from 'nodemailer';
import { Clock, isSafeFetchError, SafeFetcher, signWebhook } from '@app/common';
import { AppConfig } from '@app/config';
import { AlertSecrets } from './alert-secrets';
import { TELEGRAM_BOT_TOKEN, type StoredChannel } from './alert-rules';

/** What one delivery sends: the event as JSON (webhooks) and as text (e-mail, Telegram). */
export interface AlertMessage {
  /** the delivery's id: the webhook-id, the same on every retry */
  id: string;
  subject: string;
  text: string;
  json: Record<string, unknown>;
}

export interface SendOutcome {
  ok: boolean;
  /** the failure cannot heal by retrying (the SSRF guard refused the address or URL, a malformed bot token) */
  permanent: boolean;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

/** A failure no retry can heal. */
class PermanentSendError extends Error {}

/**
 * Refusals of the SSRF guard (an address or URL it refuses, also when a redirect leads there) and
 * malformed channels fail a delivery at once: retrying would be refused the same way.
 */
function isPermanent(err: unknown): boolean {
  if (err instanceof PermanentSendError) return true;
  return isSafeFetchError(err) && (err.code === 'forbidden_address' || err.code === 'invalid_url');
}

/** Receivers answer within this budget, or the attempt failed. */
const SEND_TIMEOUT_MS = 10_000;
/** what is read of a receiver's answer (it is not used) */
const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * Sends one delivery attempt on its channel: a Standard Webhooks POST and the Telegram Bot API call
 * through the SSRF-guarded fetcher, e-mail through SMTP (SMTP_URL / MAIL_FROM, as invitations).
 */
@Injectable()
export class AlertSender implements OnApplicationShutdown {
  private transport: Transporter | null = null;

  constructor(
    private readonly fetcher: SafeFetcher,
    private readonly config: AppConfig,
    private readonly secrets: AlertSecrets,
    private readonly clock: Clock,
  ) {}

  onApplicationShutdown(): void {
    this.transport?.close();
  }

  /** True when e-mail channels can be delivered (SMTP_URL and MAIL_FROM set). */
  get mailConfigured(): boolean {
    return Boolean(this.config.accounts.smtpUrl && this.config.accounts.mailFrom);
  }

  async send(channel: StoredChannel, message: AlertMessage): Promise<SendOutcome> {
    const started = performance.now();
    const done = (statusCode: number | null, error: string | null, permanent = false): SendOutcome => ({
      ok: error === null,
      permanent,
      statusCode,
      error,
      durationMs: Math.round(performance.now() - started),
    });
    try {
      if (channel.type === 'webhook') return done(await this.webhook(channel, message), null);
      if (channel.type === 'telegram') return done(await this.telegram(channel, message), null);
      await this.email(channel, message);
      return done(null, null);
    } catch (err) {
      const status = isSafeFetchError(err) ? (err.details.status ?? null) : null;
      const text = err instanceof Error ? err.message : String(err);
      const token = channel.type === 'telegram' ? await this.secrets.open(channel.bot_token).catch(() => '') : '';
      return done(status, (token ? text.split(token).join('***') : text).slice(0, 500), isPermanent(err));
    }
  }

  private async webhook(channel: { url: string; secret: string }, message: AlertMessage): Promise<number> {
    const secret = await this.secrets.open(channel.secret);
    const body = JSON.stringify(message.json);
    const timestamp = Math.floor(this.clock.now() / 1000);
    await this.fetcher.fetch(channel.url, {
      method: 'POST',
      maxBytes: MAX_RESPONSE_BYTES,
      timeoutMs: SEND_TIMEOUT_MS,
      headers: {
        'content-type': 'application/json',
        'webhook-id': message.id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signWebhook(secret, message.id, timestamp, body),
      },
      body,
    });
    return 200;
  }

  private async telegram(channel: { chat_id: string; bot_token: string }, message: AlertMessage): Promise<number> {
    const token = await this.secrets.open(channel.bot_token);
    if (!TELEGRAM_BOT_TOKEN.test(token)) throw new PermanentSendError('The bot token is not a Telegram bot token.');
    // one path segment whatever the token holds (`:` is allowed in a segment and kept readable)
    const segment = encodeURIComponent(`bot${token}`).replace(/%3A/gi, ':');
    await this.fetcher.fetch(`${this.config.alerts.telegramApiBase}/${segment}/sendMessage`, {
      method: 'POST',
      maxBytes: MAX_RESPONSE_BYTES,
      timeoutMs: SEND_TIMEOUT_MS,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ chat_id: channel.chat_id, text: message.text, disable_web_page_preview: true }),
    });
    return 200;
  }

  private async email(channel: { to: string[] }, message: AlertMessage): Promise<void> {
    const { smtpUrl, mailFrom } = this.config.accounts;
    if (!smtpUrl || !mailFrom) throw new Error('E-mail is not configured (SMTP_URL and MAIL_FROM).');
    this.transport ??= createTransport(smtpUrl);
    await this.transport.sendMail({ from: mailFrom, to: channel.to, subject: message.subject, text: message.text });
  }
}
