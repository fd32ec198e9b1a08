import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { Clock, SecretBox } from '@app/common';
import { AppConfig } from '@app/config';
import { AlertsRepository } from './alerts.repository';

/**
 * Seals alert channel secrets (webhook signing secrets, bot tokens) at rest with the key of the
 * integration secrets: INTEGRATION_SECRET_KEY, or else the random key created once in the database
 * (gateway_secrets, shared by replicas).
 */
@Injectable()
export class AlertSecrets {
  private box: Promise<SecretBox> | null = null;

  constructor(
    private readonly config: AppConfig,
    private readonly repo: AlertsRepository,
    private readonly clock: Clock,
  ) {}

  async seal(plain: string): Promise<string> {
    return (await this.key()).seal(plain);
  }

  async open(sealed: string): Promise<string> {
    return (await this.key()).open(sealed);
  }

  private key(): Promise<SecretBox> {
    if (this.config.integrationSecretKey) return Promise.resolve(new SecretBox(this.config.integrationSecretKey));
    if (!this.box) {
      this.box = this.repo
        .secret('integration-secret-key', randomBytes(32).toString('base64'), this.clock.now())
        .then((s) => new SecretBox(s));
      this.box.catch(() => (this.box = null));
    }
    return this.box;
  }
}
