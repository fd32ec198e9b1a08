import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { NextFunction, Request, Response } from 'express';

/**
 * The web console: the built files of apps/console (dist/console), read into memory once at boot and
 * served from a map. An API request costs one prefix test and nothing else — no file-system call —
 * so the API's latency is the same whether or not the console is built.
 *
 * - Hashed files under /assets/ never change: one-year immutable cache. index.html and the other
 *   top-level files are revalidated on every load (no-cache), so a new build is picked up at once.
 * - Any other GET that asks for HTML outside the API's paths is a console route (client-side
 *   routing): it gets index.html.
 * - Console responses carry a strict Content-Security-Policy: scripts, fonts, images and
 *   connections only from this origin; inline styles are allowed because the component library
 *   sets style attributes (scripts stay strict).
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Paths the console never answers: the API, the OpenAI-compatible routes, Swagger, health and metrics. */
const NOT_CONSOLE = /^\/(?:api|v1|v2|docs|docs-json|health|ready|metrics)(?:\/|$|-)/;

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
  '.webmanifest': 'application/manifest+json',
};
const COMPRESSIBLE = new Set(['.html', '.js', '.css', '.svg', '.json', '.txt', '.webmanifest']);

interface Asset {
  body: Buffer;
  gzip?: Buffer;
  type: string;
  cacheControl: string;
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    return statSync(full).isDirectory() ? walk(full) : [full];
  });
}

export function loadConsoleAssets(dir: string): Map<string, Asset> | null {
  if (!existsSync(join(dir, 'index.html'))) return null;
  const assets = new Map<string, Asset>();
  for (const file of walk(dir)) {
    const url = '/' + relative(dir, file).split(sep).join('/');
    const ext = extname(file).toLowerCase();
    const body = readFileSync(file);
    const hashed = url.startsWith('/assets/');
    assets.set(url, {
      body,
      gzip: COMPRESSIBLE.has(ext) && body.length > 1024 ? gzipSync(body, { level: 9 }) : undefined,
      type: TYPES[ext] ?? 'application/octet-stream',
      cacheControl: hashed ? 'public, max-age=31536000, immutable' : 'no-cache',
    });
  }
  return assets;
}

function wantsHtml(req: Request): boolean {
  const accept = req.headers.accept ?? '';
  return accept.includes('text/html');
}

export function consoleAssets(assets: Map<string, Asset>) {
  const index = assets.get('/index.html')!;
  return (req: Request, res: Response, next: NextFunction): void => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || NOT_CONSOLE.test(req.path)) return next();
    let asset = assets.get(req.path === '/' ? '/index.html' : req.path);
    if (!asset) {
      // a client-side route (/projects/…): the page; a missing hashed file stays a 404
      if (req.path.startsWith('/assets/') || !wantsHtml(req)) return next();
      asset = index;
    }
    res.setHeader('content-type', asset.type);
    res.setHeader('cache-control', asset.cacheControl);
    res.setHeader('x-content-type-options', 'nosniff');
    if (asset.type.startsWith('text/html')) {
      res.setHeader('content-security-policy', CONSOLE_CSP);
      res.setHeader('referrer-policy', 'same-origin');
      res.setHeader('x-frame-options', 'DENY');
    }
    res.setHeader('vary', 'accept-encoding');
    const gzip = asset.gzip && /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
    const body = gzip ? asset.gzip! : asset.body;
    if (gzip) res.setHeader('content-encoding', 'gzip');
    res.setHeader('content-length', body.length);
    res.status(200).end(req.method === 'HEAD' ? undefined : body);
  };
}
