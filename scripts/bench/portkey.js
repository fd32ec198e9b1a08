#!/usr/bin/env node
/**
 * A peer target for `npm run bench`'s overhead section: Portkey's open-source AI gateway
 * (`@portkey-ai/gateway`, Hono on @hono/node-server), run from its published build
 * (`build/start-server.js`) as a child process, with nothing of ours in its request path.
 *
 * How it is run, and why:
 *   - `--port=<PORTKEY_PORT> --headless` and NODE_ENV=production: no console UI, no `/public` or
 *     `/log/stream` routes. Portkey's Node build keeps one middleware that, for every `/v1/` answer,
 *     clones and parses the response body for its log-stream clients (none are connected here); no
 *     setting turns it off, so it is measured as shipped.
 *   - no cache and no retries: the bench sends no `x-portkey-cache` / `x-portkey-retry-count` header
 *     and no config (Portkey answers `x-portkey-cache-status: DISABLED`,
 *     `x-portkey-retry-attempt-count: 0`); REDIS_CONNECTION_STRING is not passed, so no Redis cache
 *     backend is created.
 *   - routing: the bench sends `x-portkey-provider: openai`, `x-portkey-custom-host:
 *     <fake upstream>/v1` and `Authorization: Bearer <upstream key>` (Portkey's own way to reach
 *     an OpenAI-compatible host).
 *   - one compatibility fix, for streams only in effect: Portkey builds its answer with
 *     `new Response(body, upstreamResponse)` and then appends its `x-portkey-*` headers. With the
 *     @hono/node-server this repository resolves (1.19, required by @hono/node-ws), whose
 *     lightweight Response keeps the init's Headers object as is, those are the upstream fetch
 *     response's immutable headers, and every streamed chat completion fails with
 *     `TypeError: immutable` (a known incompatibility of Portkey with @hono/node-server newer than
 *     1.14.2). Below, a Response built from another native Response gets a copy of its status and
 *     headers instead — what the native constructor does, and what Portkey's own fix of it does.
 *     Non-streamed answers are unaffected (they worked before it).
 *
 * Run as a child process: `PORTKEY_PORT=N node scripts/bench/portkey.js`; once Portkey listens
 * it prints one JSON line `{"port": N}` to stdout.
 */
'use strict';
const path = require('node:path');

async function main() {
  const port = Number(process.env.PORTKEY_PORT);
  if (!Number.isInteger(port) || port <= 0) throw new Error('PORTKEY_PORT must be a port number');
  process.argv.push(`--port=${port}`, '--headless');
  const entry = path.join(path.dirname(require.resolve('@portkey-ai/gateway/package.json')), 'build/start-server.js');
  // the module listens, then waits ≈ 1 s on its start-up banner before its import resolves
  await import(entry);

  // @hono/node-server has replaced the global Response with its lightweight one by now
  const Lightweight = globalThis.Response;
  const Native = Object.getPrototypeOf(Lightweight);
  if (typeof Native !== 'function' || Native === Function.prototype)
    throw new Error('expected @hono/node-server to have replaced the global Response');
  class Response extends Lightweight {
    constructor(body, init) {
      if (init instanceof Native && !(init instanceof Lightweight))
        init = { status: init.status, statusText: init.statusText, headers: new Headers(init.headers) };
      super(body, init);
    }
  }
  Object.defineProperty(globalThis, 'Response', { value: Response, writable: true, configurable: true });
  process.stdout.write(`\n${JSON.stringify({ port })}\n`);
}

main().catch((err) => {
  process.stderr.write(`${err && err.stack ? err.stack : err}\n`);
  process.exit(1);
});
