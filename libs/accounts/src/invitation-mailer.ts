import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { createTransport, Transporter } from 'nodemailer';
import { AppConfig } from '@app/config';

/**
 * Sends the invitation e-mail through nodemailer when SMTP_URL and MAIL_FROM are set; without them
 * nothing is sent (the inviter passes on the returned URL). A failed send is logged and does not
 * undo the invitation: its URL is in the response either way.
 */
@Injectable()
export class InvitationMailer implements OnApplicationShutdown {
  private readonly logger = new Logger('InvitationMailer');
  private transport: Transporter | null = null;

  constructor(private readonly config: AppConfig) {}

  onApplicationShutdown(): void {
    this.transport?.close();
  }

  async send(to: string, url: string, role: string, expiresAt: number): Promise<boolean> {
    const { smtpUrl, mailFrom } = this.config.accounts;
    if (!smtpUrl || !mailFrom) return false;
    this.transport ??= createTransport(smtpUrl);
    const until = new Date(expiresAt).toISOString().slice(0, 16).replace('T', ' ');
    try {
      await this.transport.sendMail({
        from: mailFrom,
        to,
        subject: 'You are invited to a team on the model gateway',
        text:
          `You have been invited to join a team as ${role}.\n\n` +
          `Accept the invitation here (valid until ${until} UTC, one use):\n${url}\n`,
      });
      return true;
    } catch (err) {
      this.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'invitation e-mail not sent');
      return false;
    }
  }
}
