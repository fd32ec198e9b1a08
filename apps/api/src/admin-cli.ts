import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { parseArgs } from 'node:util';
import { ApiError } from '@app/common';
import { AppConfig, ConfigError } from '@app/config';
import { TeamsService } from '@app/billing';
import { AdminService } from '@app/admin';
import { ENV_PROVIDERS } from '@app/providers';
import { AccountsService, AuditContext, CLI_ACTOR } from '@app/accounts';
import { AppModule } from './app.module';

const USAGE = `usage: npm run admin -- <command>
  teams create <name> [--balance <RUB>]        create a team (workspace), optionally with an opening balance
  keys create <team-id> [--name <name>]        issue an API key (printed once)
  top-up <team-id> <RUB> [--reference <ref>]   add to a team's balance (a repeated reference is applied once)
  keys limits <key-id> [--rpm N] [--tpm N] [--day-budget RUB] [--month-budget RUB]
                                               set a key's rate limits / RUB budgets ("none" removes one); no option: show them
  teams limits <team-id> [--rpm N] [--tpm N]   set a team's rate limits ("none" removes one); no option: show them
  user create <email> [--name <name>] [--operator] [--team <team-id> --role <role>]
                                               create a user; its generated password is printed once
Uses the same configuration (DATABASE_URL / DATA_DIR …), services and database as the server.`;

/** The admin CLI: the same services and database as the server, without HTTP. Prints JSON. */
async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      balance: { type: 'string' },
      name: { type: 'string' },
      reference: { type: 'string' },
      rpm: { type: 'string' },
      tpm: { type: 'string' },
      'day-budget': { type: 'string' },
      'month-budget': { type: 'string' },
      operator: { type: 'boolean' },
      team: { type: 'string' },
      role: { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  const [a, b, c, d] = positionals;
  if (values.help || !a) {
    process.stdout.write(`${USAGE}\n`);
    return values.help ? 0 : 2;
  }
  // option values are checked before the database is opened
  for (const [name, v] of [
    ['rpm', values.rpm],
    ['tpm', values.tpm],
  ] as const)
    limit(v, name);
  for (const [name, v] of [
    ['day-budget', values['day-budget']],
    ['month-budget', values['month-budget']],
  ] as const)
    rub(v, name);
  AppConfig.load(ENV_PROVIDERS); // fail fast on a bad environment, before the database is opened
  const app = await NestFactory.createApplicationContext(AppModule, { logger: false });
  try {
    // every change the command makes is audited with the CLI as its actor
    const out = await AuditContext.run(
      () => CLI_ACTOR,
      () => run(app, [a, b, c, d], values),
    );
    process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
    return 0;
  } finally {
    await app.close();
  }
}

async function run(
  app: Awaited<ReturnType<typeof NestFactory.createApplicationContext>>,
  [a, b, c, d]: (string | undefined)[],
  opts: {
    balance?: string;
    name?: string;
    reference?: string;
    rpm?: string;
    tpm?: string;
    'day-budget'?: string;
    'month-budget'?: string;
    operator?: boolean;
    team?: string;
    role?: string;
  },
): Promise<unknown> {
  if (a === 'user' && b === 'create' && c) {
    const roles = ['viewer', 'member', 'admin', 'owner'] as const;
    const role = roles.find((r) => r === opts.role);
    if ((opts.team === undefined) !== (opts.role === undefined) || (opts.role !== undefined && !role))
      throw new UsageError('--team and --role go together; --role is one of viewer, member, admin, owner');
    if (opts.team) await app.get(TeamsService).get(opts.team);
    if (!/^[^\s@]+@[^\s@]+$/.test(c)) throw new UsageError(`not an e-mail address: ${c}`);
    return app
      .get(AccountsService)
      .createUser(
        { email: c, name: opts.name, operator: opts.operator === true },
        CLI_ACTOR,
        opts.team && role ? { teamId: opts.team, role } : null,
      );
  }
  if (a === 'teams' && b === 'create' && c) {
    return app.get(AdminService).createTeam(c, opts.balance ?? 0, CLI_ACTOR);
  }
  if (a === 'keys' && b === 'create' && c) {
    const key = await app.get(AdminService).createKey(c, opts.name ?? null, { actor: CLI_ACTOR });
    return { id: key.id, team_id: c, api_key: key.api_key, prefix: key.prefix };
  }
  if (a === 'top-up' && b && c) {
    const out = await app.get(AdminService).topUp(b, c, opts.reference ?? null, null, CLI_ACTOR);
    return { team_id: b, applied: out.applied, balance_rub: out.balance_rub };
  }
  if (a === 'keys' && b === 'limits' && c) {
    const patch = {
      rpm_limit: limit(opts.rpm, 'rpm'),
      tpm_limit: limit(opts.tpm, 'tpm'),
      budget_rub_per_day: rub(opts['day-budget'], 'day-budget'),
      budget_rub_per_month: rub(opts['month-budget'], 'month-budget'),
    };
    const admin = app.get(AdminService);
    return Object.values(patch).every((v) => v === undefined) ? admin.getKey(c) : admin.updateKey(c, patch, CLI_ACTOR);
  }
  if (a === 'teams' && b === 'limits' && c) {
    const patch = { rpm_limit: limit(opts.rpm, 'rpm'), tpm_limit: limit(opts.tpm, 'tpm') };
    const admin = app.get(AdminService);
    return patch.rpm_limit === undefined && patch.tpm_limit === undefined
      ? admin.getTeam(c)
      : admin.updateTeam(c, patch, CLI_ACTOR);
  }
  void d;
  throw new UsageError(`unknown command: ${[a, b].filter(Boolean).join(' ')}`);
}

class UsageError extends Error {}

/** --rpm/--tpm: a positive integer, or "none" (removes the limit: the env default applies). */
function limit(v: string | undefined, name: string): number | null | undefined {
  if (v === undefined) return undefined;
  if (v === 'none') return null;
  if (!/^\d+$/.test(v) || Number(v) < 1 || Number(v) > 1_000_000_000)
    throw new UsageError(`--${name} must be a positive integer or "none", got "${v}"`);
  return Number(v);
}

/** --day-budget/--month-budget: RUB > 0 with at most 6 decimals, or "none". */
function rub(v: string | undefined, name: string): number | null | undefined {
  if (v === undefined) return undefined;
  if (v === 'none') return null;
  if (!/^\d+(\.\d{1,6})?$/.test(v) || Number(v) <= 0)
    throw new UsageError(`--${name} must be an amount in RUB (> 0, at most 6 decimals) or "none", got "${v}"`);
  return Number(v);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof UsageError) process.stderr.write(`${err.message}\n${USAGE}\n`);
    else if (err instanceof ConfigError) process.stderr.write(`configuration error: ${err.message}\n`);
    else if (err instanceof ApiError) process.stderr.write(`${err.message}\n`);
    else if (err instanceof RangeError) process.stderr.write(`${err.message}\n`);
    else process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(err instanceof UsageError ? 2 : 1);
  },
);
