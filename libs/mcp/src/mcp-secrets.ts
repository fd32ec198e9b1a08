import { Injectable } from '@nestjs/common';
import { Clock, SecretSealer } from '@app/common';
import { AppConfig } from '@app/config';
import { McpServersRepository } from './mcp-servers.repository';

/** Seals MCP server headers at rest with the integration secrets' key (INTEGRATION_SECRET_KEY or the stored one). */
@Injectable()
export class McpSecrets extends SecretSealer {
  constructor(config: AppConfig, repo: McpServersRepository, clock: Clock) {
    super(config.integrationSecretKey, (candidate) => repo.secret('integration-secret-key', candidate, clock.now()));
  }
}
