import { afterAll, describe, expect, it } from 'vitest';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { CHROMIUM, freePort, launchBrowser, openSession, ROOT, shot } from './support';

/**
 * The README's quick start, run as a newcomer runs it: a clean `git clone` of this checkout's HEAD,
 * the commands of README.md's quick-start block (the one marked `<!-- readme-test: server -->`,
 * read from the README here, never copied) run in that clone one after another in bash, and then a
 * browser at the console address the README names, signed in with the e-mail and password the
 * commands set, ending on the overview.
 *
 * Two departures from "verbatim", both forced by CI:
 * - `npm ci` / `npm install` downloads and installs every package, minutes of network and disk
 *   work: instead node_modules is hard-linked from this checkout (`cp -al`), the tree `npm ci`
 *   would have produced from the same package-lock.json.
 * - the port: the README documents `PORT` (default 3000) as where the server listens, so the
 *   commands run with `PORT` set to a free port, and the README's `localhost:3000` addresses are
 *   read with that port.
 * Every other command runs exactly as written, including `npm start`'s build (nest build and the
 * console's build: most of this test's few minutes).
 */
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** The quick start's command lines, in order (comments and blank lines left out). */
function quickStartCommands(): string[] {
  const m = /<!-- readme-test: server -->\s*```bash\n([\s\S]*?)```/.exec(README);
  if (!m) throw new Error('README.md has no quick-start block marked <!-- readme-test: server -->');
  return m[1]
    .split('\n')
    .map((l) => l.replace(/(^|\s)#.*$/, '').trim())
    .filter(Boolean);
}

/** `A=1 B=2 cmd …` → { A: '1', B: '2' } (the variables a command line sets for its command). */
function assignments(line: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const word of line.split(/\s+/)) {
    const m = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(word);
    if (!m) break;
    out[m[1]] = m[2].replace(/^(['"])(.*)\1$/, '$2');
  }
  return out;
}

const INSTALL = /^npm (ci|install|i)(\s|$)/;
let dir = '';
let server: ChildProcess | undefined;
let browser: Browser | undefined;

/** The server's whole process group (bash, npm, node): the shell's children must not outlive the test. */
function killServer(): Promise<void> {
  const child = server;
  if (!child?.pid || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((ok) => child.once('exit', () => ok()));
  try {
    process.kill(-child.pid, 'SIGTERM');
  } catch {
    return Promise.resolve();
  }
  return Promise.race([
    exited,
    new Promise<void>((ok) =>
      setTimeout(() => {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          // already gone
        }
        ok();
      }, 10_000),
    ),
  ]);
}

afterAll(async () => {
  await browser?.close();
  await killServer();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 60_000);

describe('README quick start', () => {
  it('run from a clean clone, ends with a signed-in browser on the overview', { timeout: 20 * 60_000 }, async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`Chromium is missing at ${CHROMIUM}: set CHROMIUM_PATH`);
    const commands = quickStartCommands();
    expect(commands.length).toBeGreaterThan(0);

    // what the README promises at the end: the console's address and who signs in there
    const env = Object.assign({}, ...commands.map(assignments)) as Record<string, string>;
    const email = env.BOOTSTRAP_OPERATOR_EMAIL;
    const password = env.BOOTSTRAP_OPERATOR_PASSWORD;
    expect(email && password, 'the quick start creates an operator who can sign in').toBeTruthy();
    const webConsole = README.slice(README.indexOf('## Web console'));
    const consoleUrl = /<(http:\/\/localhost:3000\/[^>]*)>/.exec(webConsole)?.[1];
    expect(consoleUrl, 'the README names the console address').toBeTruthy();
    expect(webConsole).toContain(`sign in with \`${email}\` and \`${password}\``);

    // a clean clone of what is committed here
    dir = mkdtempSync(join(tmpdir(), 'gw-readme-quickstart-'));
    const clone = join(dir, 'repo');
    const head = execFileSync('git', ['-C', ROOT, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
    execFileSync('git', ['clone', '--quiet', '--no-checkout', ROOT, clone]);
    execFileSync('git', ['-C', clone, 'checkout', '--quiet', '--detach', head]);

    const port = await freePort();
    const childEnv: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env))
      if (v !== undefined && !/^(VITEST|NODE_ENV$|DATABASE_|REDIS_|DATA_DIR$|PORT$|HOST$|npm_)/.test(k))
        childEnv[k] = v;
    childEnv.PORT = String(port);

    const run: string[] = [];
    for (const line of commands) {
      if (INSTALL.test(line)) {
        // `npm ci`: the same package-lock.json's tree, hard-linked from this checkout (see above)
        execFileSync('cp', ['-al', join(ROOT, 'node_modules'), join(clone, 'node_modules')]);
        continue;
      }
      run.push(line);
    }
    expect(run.length, 'the quick start starts a server').toBeGreaterThan(0);
    let output = '';
    const started = Date.now();
    // one bash, the commands in order as written; its own process group, killed at the end
    server = spawn('bash', ['-euo', 'pipefail', '-c', run.join('\n')], {
      cwd: clone,
      env: childEnv,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    server.stdout?.on('data', (d) => (output = (output + String(d)).slice(-20_000)));
    server.stderr?.on('data', (d) => (output = (output + String(d)).slice(-20_000)));

    const url = consoleUrl!.replace('localhost:3000', `localhost:${port}`);
    for (;;) {
      if (server.exitCode !== null) throw new Error(`the quick start exited with ${server.exitCode}:\n${output}`);
      try {
        if ((await fetch(new URL('/health', url))).ok) break;
      } catch {
        // still building, or not listening yet
      }
      if (Date.now() - started > 15 * 60_000) throw new Error(`no server after 15 minutes:\n${output}`);
      await new Promise((r) => setTimeout(r, 1000));
    }
    console.log(`README quick start: the server answered after ${Math.round((Date.now() - started) / 1000)} s`);

    browser = await launchBrowser();
    const { page, context, errors } = await openSession(browser);
    await page.goto(url);
    await page.getByLabel(/^Email/).fill(email);
    await page.getByLabel(/^Password/).fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/');
    await shot(page, 'readme-quickstart-overview-en');
    expect(errors).toEqual([]);
    await context.close();
  });
});
