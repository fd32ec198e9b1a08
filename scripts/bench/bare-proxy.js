#!/usr/bin/env node
/**
 * The floor for `npm run bench`'s overhead section: a bare Node reverse proxy (node:http server +
 * one keep-alive undici Pool to the upstream) that forwards method, path, headers and body as
 * streams and pipes the answer back — no auth, no parsing, no billing, no logs. Whatever a Node
 * gateway on this machine adds at the very least (one more process, one more hop over loopback).
 *
 * Run as a child process: `UPSTREAM_URL=http://127.0.0.1:N node scripts/bench/bare-proxy.js`; it
 * listens on 127.0.0.1 with a random port and prints one JSON line `{"port": N}` to stdout.
 */
'use strict';
const http = require('node:http');
const { Pool } = require('undici');

const upstream = new Pool(process.env.UPSTREAM_URL, {
  connections: Number(process.env.BARE_PROXY_CONNECTIONS || 128),
  keepAliveTimeout: 60_000,
  pipelining: 1,
});
const HOP = new Set([
  'connection',
  'keep-alive',
  'host',
  'transfer-encoding',
  'proxy-connection',
  'te',
  'upgrade',
  'trailer',
]);

function forwardHeaders(raw) {
  const out = {};
  for (const [k, v] of Object.entries(raw)) if (!HOP.has(k)) out[k] = v;
  return out;
}

const server = http.createServer((req, res) => {
  upstream
    .request({
      method: req.method,
      path: req.url,
      headers: forwardHeaders(req.headers),
      body: req.method === 'GET' || req.method === 'HEAD' ? undefined : req,
    })
    .then(({ statusCode, headers, body }) => {
      res.writeHead(statusCode, forwardHeaders(headers));
      body.on('error', () => res.destroy());
      body.pipe(res);
    })
    .catch((err) => {
      if (res.headersSent) return res.destroy();
      const text = JSON.stringify({
        error: { message: `bare proxy: ${err.message}`, type: 'server_error', param: null, code: null },
      });
      res.writeHead(502, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      res.end(text);
    });
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`));
const stop = () => {
  server.close(() => upstream.close().then(() => process.exit(0)));
  server.closeAllConnections();
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
