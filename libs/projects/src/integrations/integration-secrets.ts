import { Injectable } from '@nestjs/common';
import { Clock, SecretSealer } from '@app/common';
import { AppConfig } from '@app/config';
import { ProjectsRepository } from '../projects.repository';

/**
 * Seals integration secrets at rest. The key is INTEGRATION_SECRET_KEY; without it, a random key
 * created once in the database (gateway_secrets, shared by replicas), as for image-link signing.
 */
@Injectable()
export class IntegrationSecrets extends SecretSealer {
  constructor(config: AppConfig, repo: ProjectsRepository, clock: Clock) {
    super(config.integrationSecretKey, (candidate) => repo.secret('integration-secret-key', candidate, clock.now()));
  }
}
