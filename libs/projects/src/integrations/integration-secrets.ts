import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { Clock } from '@app/common';
import { AppConfig } from '@app/config';
import { ProjectsRepository } from '../projects.repository';
import { SecretBox } from '@app/common';

/**
 * Seals integration secrets at rest. The key is INTEGRATION_SECRET_KEY; without it, a random key
 * created once in the database (gateway_secrets, shared by replicas), as for image-link signing.
 */
@Injectable()
export class IntegrationSecrets {
  private box: Promise<SecretBox> | null = null;

  constructor(
    private readonly config: AppConfig,
    private readonly repo: ProjectsRepository,
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
