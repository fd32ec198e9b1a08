import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { rubToMicro } from '@app/common';
import { AppConfig } from '@app/config';
import { ApiKeysService } from '@app/auth';
import { BillingService, TeamsService } from '@app/billing';

/**
 * BOOTSTRAP_API_KEY / BOOTSTRAP_BALANCE_RUB: on start, if no key with that value exists, create the
 * workspace "default" with that balance and that key. Idempotent across restarts and replicas:
 * the team id is derived from the key's hash (insert-if-absent), the opening balance is a top-up
 * with a fixed reference (applied once), and the key insert ignores a duplicate hash.
 */
@Injectable()
export class BootstrapService implements OnApplicationBootstrap {
  private readonly logger = new Logger('Bootstrap');
  private workspace: Promise<string | null> | null = null;

  constructor(
    private readonly config: AppConfig,
    private readonly teams: TeamsService,
    private readonly keys: ApiKeysService,
    private readonly billing: BillingService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.bootstrapWorkspace();
  }

  /**
   * The id of the bootstrap workspace ("default", of BOOTSTRAP_API_KEY) once it exists, or null when
   * none is configured. Runs once per process; other start-up steps (the bootstrap operator) await it.
   */
  bootstrapWorkspace(): Promise<string | null> {
    this.workspace ??= this.ensureWorkspace();
    return this.workspace;
  }

  private async ensureWorkspace(): Promise<string | null> {
    const key = this.config.bootstrapApiKey;
    if (!key && !this.config.adminToken && !(this.config.databaseKind === 'sqlite' && this.config.devWorkspace)) {
      this.logger.warn(
        'Neither BOOTSTRAP_API_KEY nor ADMIN_TOKEN is set: no API key can be issued. Set BOOTSTRAP_API_KEY (and BOOTSTRAP_BALANCE_RUB) or ADMIN_TOKEN.',
      );
    }
    if (!key) return null;
    const teamId = uuidFromHash(createHash('sha256').update(`bootstrap:${key}`).digest('hex'));
    if (await this.keys.existsByKey(key)) return teamId;
    await this.teams.ensure(teamId, 'default');
    const micro = rubToMicro(this.config.bootstrapBalanceRub);
    if (micro > 0) await this.billing.topUp(teamId, micro, 'bootstrap-opening-balance');
    await this.keys.ensure(teamId, key, 'bootstrap');
    this.logger.log(`bootstrap workspace "default" (${teamId}) ready with the configured API key`);
    return teamId;
  }

  /**
   * First run of the embedded default (SQLite, no key in the database, neither BOOTSTRAP_API_KEY nor
   * ADMIN_TOKEN): a development workspace with a key and a small balance, the key printed once.
   * Never on Postgres; DEV_WORKSPACE=false turns it off. `more(teamId)` adds lines to the banner
   * (the first operator's sign-in).
   */
  async firstRun(more?: (teamId: string) => Promise<string[]>): Promise<boolean> {
    if (this.config.bootstrapApiKey || this.config.adminToken) return false;
    if (this.config.databaseKind !== 'sqlite' || !this.config.devWorkspace || (await this.keys.count()) > 0)
      return false;
    const team = await this.teams.create('dev', rubToMicro(DEV_WORKSPACE_BALANCE_RUB));
    const key = await this.keys.create(team.id, 'dev');
    const extra = more ? await more(team.id) : [];
    const port = this.config.port;
    const banner = [
      '',
      '================================================================================',
      ' First run: a development workspace was created (embedded database, no API key existed).',
      `   API key: ${key.apiKey}`,
      `   Balance: ${DEV_WORKSPACE_BALANCE_RUB} RUB. This key is shown once; keep it.`,
      `   Try:  curl -s localhost:${port}/api/v1/chat -H 'api-key: ${key.apiKey}' -H 'content-type: application/json' \\`,
      `           -d '{"model":"local","user_id":"u1","prompt":"What is the capital of France?","system_prompt":"Paris is the capital of France."}'`,
      ...extra,
      ' Turn this off with DEV_WORKSPACE=false (or set BOOTSTRAP_API_KEY / ADMIN_TOKEN).',
      '================================================================================',
      '',
    ].join('\n');
    process.stdout.write(`${banner}\n`);
    this.logger.log(`first run: development workspace "dev" (${team.id}) created with key ${key.prefix}`);
    return true;
  }
}

/** The balance of the development workspace created on a first run (RUB). */
export const DEV_WORKSPACE_BALANCE_RUB = 100;

function uuidFromHash(hex: string): string {
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
