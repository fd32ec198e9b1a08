/** The first minutes of a newcomer: what SDKs call first — openai.models.retrieve — and the process stopping on SIGTERM. */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import request from 'supertest';
import { BootstrapService } from '@app/admin';
import { AdminClient } from '../support/admin-client';
import { ADMIN_TOKEN, createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';

describe(`SDK entry points (${backendKind()})`, () => {
  let t: TestApp;
  let client: OpenAI;
  beforeAll(async () => {
    t = await createTestApp();
    const { apiKey } = await new AdminClient(t.url).teamWithKey(1);
    client = new OpenAI({ apiKey, baseURL: `${t.url}/v1`, maxRetries: 0 });
  });
  afterAll(() => t?.close());

  it('errors that explain: a missing field is "required", a non-JSON body is 415, a wrong method is 405 with Allow', async () => {
    const key = (client as unknown as { apiKey: string }).apiKey;
    const missing = await request(t.url)
      .post('/api/v1/chat')
      .set('api-key', key)
      .send({ model: 'local', prompt: 'hi' });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ param: 'user_id', message: 'user_id is required.' });
    const text = await request(t.url)
      .post('/api/v1/chat')
      .set('api-key', key)
      .set('content-type', 'text/plain')
      .send('prompt=hi');
    expect(text.status).toBe(415);
    expect(text.body.error).toMatchObject({
      code: 'unsupported_media_type',
      message: expect.stringContaining('application/json'),
    });
    const wrong = await request(t.url).delete('/v1/chat/completions').set('authorization', `Bearer ${key}`);
    expect(wrong.status).toBe(405);
    expect(wrong.headers.allow).toBe('POST');
    expect(wrong.body.error).toMatchObject({ type: 'invalid_request_error', code: 'method_not_allowed' });
    const unknown = await request(t.url).get('/v1/nothing-here').set('authorization', `Bearer ${key}`);
    expect(unknown.status).toBe(404);
  });

  it('models.retrieve answers a catalog model and 404 for an unknown one', async () => {
    expect(await client.models.retrieve('local')).toMatchObject({ id: 'local', object: 'model', owned_by: 'local' });
    await expect(client.models.retrieve('no-such-model')).rejects.toMatchObject({ status: 404 });
  });
});

describe(`first run (${backendKind()})`, () => {
  it('embedded default with no key and no admin token: a dev workspace, its key printed once; never on Postgres', async () => {
    const printed: string[] = [];
    const app = await createTestApp({ env: { ADMIN_TOKEN: '' } });
    // main.ts calls this right after listen (the admin CLI never does)
    const spy = jest
      .spyOn(process.stdout, 'write')
      .mockImplementation((chunk: string | Uint8Array) => (printed.push(String(chunk)), true));
    try {
      await app.get(BootstrapService).firstRun();
    } finally {
      spy.mockRestore();
    }
    try {
      const banner = printed.join('');
      if (backendKind() === 'postgres') {
        expect(banner).not.toContain('First run');
        return;
      }
      expect(banner).toContain('development workspace was created');
      expect(banner).toContain('DEV_WORKSPACE=false');
      const key = /API key: (sk-\S+)/.exec(banner)?.[1];
      expect(key).toBeDefined();
      const balance = await request(app.url).get('/api/v1/balance').set('api-key', key!);
      expect(balance.body.balance_rub).toBe(100);
      const chat = await request(app.url).post('/api/v1/chat').set('api-key', key!).send({
        model: 'local',
        user_id: 'u1',
        prompt: 'What is the capital of France?',
        system_prompt: 'Paris is the capital of France.',
      });
      expect(chat.status).toBe(200);
    } finally {
      await app.close();
    }
  });
});

const built = existsSync(join(__dirname, '../../dist/apps/api/src/main.js'));
(built ? describe : describe.skip)(`admin CLI on the server's database (${backendKind()})`, () => {
  it('teams create → keys create → top-up; the key works on the running server', async () => {
    const app = await createTestApp();
    try {
      const env = { ...process.env, ...app.backend.env, LOG_LEVEL: 'silent' };
      const cli = (...args: string[]) =>
        JSON.parse(
          execFileSync(process.execPath, [join(__dirname, '../../dist/apps/api/src/admin-cli.js'), ...args], {
            env,
            encoding: 'utf8',
          }),
        ) as Record<string, unknown>;
      const team = cli('teams', 'create', 'cli-team', '--balance', '12.5');
      expect(team).toMatchObject({ name: 'cli-team', balance_rub: 12.5 });
      const key = cli('keys', 'create', String(team.id), '--name', 'cli');
      expect(String(key.api_key)).toMatch(/^sk-/);
      expect(cli('top-up', String(team.id), '2.5', '--reference', 'inv-9')).toMatchObject({
        applied: true,
        balance_rub: 15,
      });
      expect(cli('top-up', String(team.id), '2.5', '--reference', 'inv-9')).toMatchObject({
        applied: false,
        balance_rub: 15,
      });
      const balance = await request(app.url).get('/api/v1/balance').set('api-key', String(key.api_key));
      expect(balance.body.balance_rub).toBe(15);
      // limits and budgets
      expect(cli('keys', 'limits', String(key.id), '--rpm', '60', '--day-budget', '5')).toMatchObject({
        id: key.id,
        rpm_limit: 60,
        tpm_limit: null,
        budget_rub_per_day: 5,
        budget_rub_per_month: null,
      });
      expect(cli('keys', 'limits', String(key.id), '--rpm', 'none', '--month-budget', '50')).toMatchObject({
        rpm_limit: null,
        budget_rub_per_day: 5,
        budget_rub_per_month: 50,
      });
      expect(cli('teams', 'limits', String(team.id), '--tpm', '100000')).toMatchObject({
        id: team.id,
        rpm_limit: null,
        tpm_limit: 100000,
      });
      expect(() =>
        execFileSync(
          process.execPath,
          [join(__dirname, '../../dist/apps/api/src/admin-cli.js'), 'keys', 'limits', String(key.id), '--rpm', '0'],
          { env, encoding: 'utf8', stdio: 'pipe' },
        ),
      ).toThrow(/--rpm must be a positive integer/);
      // every change is in the audit log with the CLI as its actor; the repeated top-up left none
      const audit = await request(app.url)
        .get(`/api/v1/audit-log?team_id=${String(team.id)}&limit=100`)
        .set('authorization', `Bearer ${ADMIN_TOKEN}`);
      expect(audit.status).toBe(200);
      const entries = audit.body.data as { action: string; actor_type: string }[];
      expect(entries.map((e) => e.action).reverse()).toEqual([
        'team.create',
        'api_key.create',
        'team.top_up',
        'api_key.update',
        'api_key.update',
        'team.update',
      ]);
      expect(entries.every((e) => e.actor_type === 'cli')).toBe(true);
      expect(JSON.stringify(audit.body)).not.toContain(String(key.api_key));
    } finally {
      await app.close();
    }
    // seven CLI processes, each booting the app's services and database: slow on a loaded 2-core machine
  }, 240_000);
});

(built ? describe : describe.skip)('npm start stops on SIGTERM', () => {
  it('SIGTERM to the npm process ends the server and frees the port', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-sigterm-'));
    const port = String(20_000 + Math.floor(Math.random() * 20_000));
    // `start` runs node directly (the build is `prestart`): call the start script without the prestart build
    const child = spawn('npm', ['run', '--silent', '--ignore-scripts', 'start'], {
      cwd: join(__dirname, '../..'),
      env: { ...process.env, PORT: port, HOST: '127.0.0.1', DATA_DIR: dir, LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('server did not start')), 60_000);
        let out = '';
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          // the first run of the embedded default prints the dev workspace's key after the listening line
          if (out.includes('listening') && out.includes('DEV_WORKSPACE=false')) {
            clearTimeout(timer);
            resolve();
          }
        });
      });
      expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      await exited;
      await expect(fetch(`http://127.0.0.1:${port}/health`)).rejects.toThrow();
    } finally {
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
