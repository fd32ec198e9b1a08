import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { createTransport, Transporter } from 'nodemailer';
import { AppConfig } from '@app/config';

export interface DocumentMail {
  to: string;
  subject: string;
  text: string;
  fileName: string;
  pdf: Buffer;
}

/**
 * Sends invoices and acts as PDF attachments through nodemailer when SMTP_URL and MAIL_FROM are set
 * (the same settings as invitations); without them nothing is sent. A failed send is logged and
 * changes nothing: the document stays downloadable.
 */
@Injectable()
export class DocumentMailer implements OnApplicationShutdown {
  private readonly logger = new Logger('DocumentMailer');
  private transport: Transporter | null = null;

  constructor(private readonly config: AppConfig) {}

  onApplicationShutdown(): void {
    this.transport?.close();
  }

  async send(mail: DocumentMail): Promise<boolean> {
    const { smtpUrl, mailFrom } = this.config.accounts;
    if (!smtpUrl || !mailFrom) return false;
    this.transport ??= createTransport(smtpUrl);
    try {
      await this.transport.sendMail({
        from: mailFrom,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        attachments: [{ filename: mail.fileName, content: mail.pdf, contentType: 'application/pdf' }],
      });
      return true;
    } catch (err) {
      this.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'document e-mail not sent');
      return false;
    }
  }
}
