/**
 * A throw-away Postgres server for fault tests (test-only): its own data directory and port, so a
 * test may stop and start it without touching the shared server. initdb refuses to run as root, so
 * the server runs as the `postgres` user when the tests run as root.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { freePort } from './private-redis';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

function pgBin(name: string): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  for (const v of versions) {
    const p = join(root, v, 'bin', name);
    if (existsSync(p)) return p;
  }
  return name;
}

export class PrivatePostgres {
  private constructor(
    readonly dir: string,
    readonly port: number,
  ) {}

  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  static available(): boolean {
    return existsSync(pgBin('initdb')) && existsSync(pgBin('pg_ctl'));
  }

  static async start(): Promise<PrivatePostgres> {
    const dir = mkdtempSync(join(tmpdir(), 'gw-private-pg-'));
    const asRoot = process.getuid?.() === 0;
    if (asRoot) execFileSync('chown', ['-R', 'postgres:postgres', dir]);
    const pg = new PrivatePostgres(dir, await freePort());
    pg.run(pgBin('initdb'), ['-D', join(dir, 'data'), '--auth=trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
    await pg.up();
    return pg;
  }

  private run(bin: string, args: string[]): void {
    const asRoot = process.getuid?.() === 0;
    if (asRoot) execFileSync('runuser', ['-u', 'postgres', '--', bin, ...args], { stdio: 'pipe', cwd: '/' });
    else execFileSync(bin, args, { stdio: 'pipe' });
  }

  async up(): Promise<void> {
    this.run(pgBin('pg_ctl'), [
      '-D',
      join(this.dir, 'data'),
      '-l',
      join(this.dir, 'log'),
      '-w',
      '-t',
      '30',
      '-o',
      `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=off`,
      'start',
    ]);
  }

  /** Stops the server at once (`immediate`: like a crash — connections are cut). */
  async down(): Promise<void> {
    this.run(pgBin('pg_ctl'), ['-D', join(this.dir, 'data'), '-w', '-m', 'immediate', 'stop']);
  }

  async destroy(): Promise<void> {
    try {
      await this.down();
    } catch {
      /* already stopped */
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
