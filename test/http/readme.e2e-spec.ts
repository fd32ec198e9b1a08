/**
 * The documentation runs: every ```bash block of README.md and of docs/*.md carries a marker comment
 * on the line before it —
 *   <!-- readme-test: server -->  how the server is started (`npm ci`, then `… npm start`; exactly one, in README.md)
 *   <!-- readme-test: run -->     executed, verbatim, in ONE bash session: README.md first, then docs/*.md
 *                                 in file-name order, each file's blocks in document order
 *   <!-- readme-test: skip (…) --> a variation that cannot run here (a provider key, your own files,
 *                                 a Docker engine, the test suite itself): not executed
 * — and an unmarked block fails this suite, so a new example is either tested or explicitly skipped.
 *
 * The server is the built app (`npm ci` and the build are CI's job; `npm start` = build + this)
 * started with the environment of the README's `npm start` line, on a temporary DATA_DIR and a free
 * port: the one change made to the blocks is `localhost:3000` → that port. The harness makes curl
 * fail on any HTTP error status (`--fail-with-body`) and runs with `set -euo pipefail`.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { backendKind } from '../support/test-env';

const ROOT = join(__dirname, '../..');
const MAIN = join(ROOT, 'dist/apps/api/src/main.js');

interface Block {
  /** the document, relative to the repository root */
  file: string;
  line: number;
  marker: 'server' | 'run' | 'skip';
  code: string;
}

/** The documents whose blocks run, in execution order: README.md, then docs/*.md by file name. */
export function documentFiles(root = ROOT): string[] {
  const docs = readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`);
  return ['README.md', ...docs];
}

/** Every bash block of one document, with its marker; `unmarked` lists the lines of blocks without one. */
export function markedBlocks(text: string, file: string): { blocks: Block[]; unmarked: number[] } {
  const lines = text.split('\n');
  const blocks: Block[] = [];
  const unmarked: number[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].trim() !== '```bash') continue;
    const end = lines.findIndex((l, j) => j > i && l.trim() === '```');
    let prev = i - 1;
    while (prev > 0 && lines[prev].trim() === '') prev--;
    const m = prev >= 0 ? /^<!-- readme-test: (server|run|skip)\b.*-->$/.exec(lines[prev].trim()) : null;
    if (!m) unmarked.push(i + 1);
    else blocks.push({ file, line: i + 1, marker: m[1] as Block['marker'], code: lines.slice(i + 1, end).join('\n') });
    i = end;
  }
  return { blocks, unmarked };
}

/** The blocks of README.md and docs/*.md in execution order, and every unmarked block as `file:line`. */
export function documentBlocks(root = ROOT): { blocks: Block[]; unmarked: string[] } {
  const blocks: Block[] = [];
  const unmarked: string[] = [];
  for (const file of documentFiles(root)) {
    const r = markedBlocks(readFileSync(join(root, file), 'utf8'), file);
    blocks.push(...r.blocks);
    unmarked.push(...r.unmarked.map((l) => `${file}:${l}`));
  }
  return { blocks, unmarked };
}

/** `A=1 B=2 npm start` → { A: '1', B: '2' }; other lines must be `npm ci`. */
function serverEnv(block: Block): Record<string, string> {
  const env: Record<string, string> = {};
  let started = false;
  for (const line of block.code
    .split('\n')
    .map((l) => l.replace(/#.*$/, '').trim())
    .filter(Boolean)) {
    if (line === 'npm ci') continue;
    const m = /^((?:[A-Z_][A-Z0-9_]*=\S+\s+)*)npm start$/.exec(line);
    if (!m)
      throw new Error(
        `${block.file}:${block.line}: the server block may only hold "npm ci" and "[VAR=value …] npm start", got: ${line}`,
      );
    for (const pair of m[1].trim().split(/\s+/).filter(Boolean)) {
      const eq = pair.indexOf('=');
      env[pair.slice(0, eq)] = pair.slice(eq + 1);
    }
    started = true;
  }
  if (!started) throw new Error(`${block.file}:${block.line}: the server block has no npm start`);
  return env;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

async function waitHealthy(url: string, proc: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) throw new Error(`the server exited (${proc.exitCode}):\n${output()}`);
    try {
      if ((await fetch(`${url}/health`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`the server did not become healthy:\n${output()}`);
}

function runBash(
  script: string,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn('bash', ['-c', script], { cwd: ROOT, env });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    p.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('README and docs blocks are marked', () => {
  it('every bash block of README.md and docs/*.md is marked server, run or skip; exactly one server block, in README.md', () => {
    const { blocks, unmarked } = documentBlocks();
    expect(unmarked.map((at) => `${at} has no <!-- readme-test: … --> marker`)).toEqual([]);
    const servers = blocks.filter((b) => b.marker === 'server');
    expect(servers).toHaveLength(1);
    expect(servers[0].file).toBe('README.md');
    expect(blocks.filter((b) => b.marker === 'run').length).toBeGreaterThanOrEqual(8);
    // the tour and the endpoint guide both run
    expect(blocks.some((b) => b.marker === 'run' && b.file === 'README.md')).toBe(true);
    expect(blocks.some((b) => b.marker === 'run' && b.file === 'docs/api.md')).toBe(true);
  });
});

// The README describes the embedded default (SQLite + in-process cache); the built app is needed.
const runnable = backendKind() === 'embedded' && existsSync(MAIN);
(runnable ? describe : describe.skip)('README and docs run verbatim on a fresh npm start (embedded default)', () => {
  let proc: ChildProcess | undefined;
  let dataDir: string;
  let log = '';

  afterAll(async () => {
    if (proc && proc.exitCode === null) {
      const exited = new Promise((r) => proc!.once('exit', r));
      proc.kill('SIGTERM');
      await exited;
    }
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('every runnable block succeeds in one shell, in order (curl fails on any HTTP error)', async () => {
    const { blocks } = documentBlocks();
    const server = blocks.find((b) => b.marker === 'server')!;
    const port = await freePort();
    const url = `http://localhost:${port}`;
    dataDir = mkdtempSync(join(tmpdir(), 'gw-readme-'));
    const base: NodeJS.ProcessEnv = { ...process.env };
    for (const k of [
      'DATABASE_URL',
      'REDIS_URL',
      'DATABASE_SCHEMA',
      'REDIS_KEY_PREFIX',
      'OPENAI_API_KEY',
      'ANTHROPIC_API_KEY',
      'GEMINI_API_KEY',
      'DEEPSEEK_API_KEY',
    ])
      delete base[k];
    const env: NodeJS.ProcessEnv = {
      ...base,
      ...serverEnv(server),
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
    };

    proc = spawn(process.execPath, [MAIN], { cwd: ROOT, env });
    proc.stdout!.on('data', (d: Buffer) => (log += d.toString()));
    proc.stderr!.on('data', (d: Buffer) => (log += d.toString()));
    await waitHealthy(url, proc, () => log);

    const run = blocks.filter((b) => b.marker === 'run');
    const script = [
      'set -euo pipefail',
      'curl() { command curl --fail-with-body --show-error "$@"; }',
      ...run.map(
        (b) => `echo; echo "### ${b.file}:${b.line}"\n${b.code.replaceAll('localhost:3000', `localhost:${port}`)}`,
      ),
      // for the checks below: the key the admin flow revoked
      'echo; echo "REVOKED_KEY=${TEAM_KEY:-}"',
    ].join('\n');
    const r = await runBash(script, env);
    if (process.env.README_TEST_ECHO) process.stdout.write(r.stdout);
    if (r.code !== 0)
      throw new Error(
        `README/docs blocks failed (exit ${r.code}).\n--- stdout ---\n${r.stdout.slice(-6000)}\n--- stderr ---\n${r.stderr.slice(-4000)}\n--- server ---\n${log.slice(-3000)}`,
      );

    // the answers are the real ones (not error bodies that happened to be 2xx)
    expect(r.stdout).toContain('Paris');
    expect(r.stdout).toContain('Berlin');
    expect(r.stdout).toContain('"object":"response"');
    expect(r.stdout).toContain('event: response.completed');
    expect(r.stdout).toContain('data: [DONE]');
    expect(r.stdout).toContain('"applied":true');
    expect(r.stdout).toMatch(/"balance_rub": 150\b/); // the CLI's team: 100 RUB + the 50 RUB top-up
    expect(r.stdout).toMatch(/\d+ \/tmp\/lighthouse\.png/);
    // the revoke example used the key the flow created: that key is refused now
    const revoked = /REVOKED_KEY=(sk-\S+)/.exec(r.stdout)?.[1];
    expect(revoked).toBeDefined();
    expect((await fetch(`${url}/api/v1/balance`, { headers: { 'api-key': revoked! } })).status).toBe(401);
  }, 180_000);
});
