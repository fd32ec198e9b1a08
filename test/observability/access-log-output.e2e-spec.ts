/**
 * The access log as a built gateway writes it to stdout: lines are buffered (4 KiB or 100 ms,
 * LOG_BUFFER_BYTES / LOG_FLUSH_MS), so a line reaches stdout within the flush interval while the
 * process runs, and every pending line is written when it stops on SIGTERM.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOG_FLUSH_MS } from '@app/common';
import { freePort } from '../support/private-redis';
import { untilAnswering, waitFor } from '../support/until';

const MAIN = join(__dirname, '../../dist/apps/api/src/main.js');
const built = existsSync(MAIN) ? describe : describe.skip;

built('access log on stdout (built gateway, buffered)', () => {
  let child: ChildProcess | undefined;
  let dataDir: string;
  let url: string;
  let stdout = '';
  let exited: Promise<number | null>;

  /** the access lines written so far, by request id */
  const logged = (): Set<string> => {
    const ids = new Set<string>();
    for (const l of stdout.split('\n')) {
      if (!l.startsWith('{')) continue;
      const line = JSON.parse(l) as { request_id?: string };
      if (line.request_id) ids.add(line.request_id);
    }
    return ids;
  };

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'gw-access-out-'));
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    child = spawn(process.execPath, [MAIN], {
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        DATA_DIR: dataDir,
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    exited = new Promise((resolve) => child!.once('exit', (code) => resolve(code)));
    await untilAnswering(url);
  }, 150_000);
  afterAll(() => {
    child?.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** an unauthenticated call (401): one access line, with the id given */
  const call = (id: string) =>
    fetch(`${url}/v1/models`, { headers: { 'x-request-id': id } }).then(async (r) => {
      await r.arrayBuffer();
      expect(r.status).toBe(401);
    });

  it('writes a line within the flush interval while the gateway runs', async () => {
    const ids = ['buffered-a', 'buffered-b', 'buffered-c'];
    for (const id of ids) await call(id);
    // far fewer than 4 KiB pending: only the periodic flush can write them
    await waitFor(() => ids.every((id) => logged().has(id)), LOG_FLUSH_MS * 20, 20);
    expect(child!.exitCode).toBeNull();
  });

  it('writes every pending line when stopped with SIGTERM', async () => {
    const ids = Array.from({ length: 40 }, (_, i) => `before-stop-${i}`);
    await Promise.all(ids.map((id) => call(id)));
    child!.kill('SIGTERM');
    expect(await exited).toBe(0);
    const seen = logged();
    expect(ids.filter((id) => !seen.has(id))).toEqual([]);
  }, 60_000);
});
