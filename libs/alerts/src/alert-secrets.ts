import { Injectable } from '@nestjs/common';
import { Clock, SecretSealer } from '@app/common';
import { AppConfig } from '@app/config';
import { AlertsRepository } from './alerts.repository';

/** Seals alert channel secrets (webhook signing secrets, bot tokens) with the integration secrets' key. */
@Injectable()
export class AlertSecrets extends SecretSealer {
  constructor(config: AppConfig, repo: AlertsRepository, clock: Clock) {
    super(config.integrationSecretKey, (candidate) => repo.secret('integration-secret-key', candidate, clock.now()));
  }
}
