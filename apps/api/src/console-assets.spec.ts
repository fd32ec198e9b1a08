import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import request from 'supertest';
import { consoleAssets, CONSOLE_CSP, loadConsoleAssets } from './console-assets';

describe('console assets', () => {
  let dir: string;
  let app: express.Express;
  const js = 'console.log("x");'.repeat(200);

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'console-assets-'));
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><div id="root"></div>');
    writeFileSync(join(dir, 'favicon.svg'), '<svg/>');
    writeFileSync(join(dir, 'assets', 'index-abc123.js'), js);
    app = express();
    app.use(consoleAssets(loadConsoleAssets(dir)!));
    // what the API would answer
    app.use((req, res) => res.status(404).json({ error: { message: `api ${req.path}` } }));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('answers / with the page, no-cache and the strict CSP', async () => {
    const res = await request(app).get('/');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.headers['content-security-policy']).toBe(CONSOLE_CSP);
    expect(CONSOLE_CSP).toContain("script-src 'self'");
    expect(CONSOLE_CSP).toContain("frame-ancestors 'none'");
  });

  it('hashed assets: one-year immutable cache, gzip when accepted, no CSP needed', async () => {
    // supertest inflates the body itself: the header says it was sent compressed
    const res = await request(app).get('/assets/index-abc123.js').set('accept-encoding', 'gzip');
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(Number(res.headers['content-length'])).toBeLessThan(js.length / 10);
    expect(res.text).toBe(js);
    const plain = await request(app).get('/assets/index-abc123.js').set('accept-encoding', 'identity');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.text).toBe(js);
  });

  it('client-side routes get the page; a missing hashed file and non-HTML requests fall through', async () => {
    const route = await request(app).get('/projects/prj_1/settings').set('accept', 'text/html');
    expect(route.status).toBe(200);
    expect(route.text).toContain('id="root"');
    expect((await request(app).get('/assets/gone.js').set('accept', 'text/html')).status).toBe(404);
    expect((await request(app).get('/projects/x').set('accept', 'application/json')).status).toBe(404);
  });

  it('never answers the API, OpenAI-compatible, docs, health or metrics paths, even for HTML', async () => {
    for (const path of [
      '/api/v1/balance',
      '/v1/models',
      '/v2/rerank',
      '/docs',
      '/docs-json',
      '/health',
      '/ready',
      '/metrics',
    ]) {
      const res = await request(app).get(path).set('accept', 'text/html');
      expect(res.status).toBe(404);
      expect(res.body.error.message).toBe(`api ${path}`);
    }
    const post = await request(app).post('/').set('accept', 'text/html');
    expect(post.body.error.message).toBe('api /');
  });

  it('HEAD answers the headers only; no build → no console', async () => {
    const head = await request(app).head('/favicon.svg');
    expect(head.status).toBe(200);
    expect(head.headers['content-type']).toBe('image/svg+xml');
    expect(loadConsoleAssets(join(dir, 'missing'))).toBeNull();
  });
});
