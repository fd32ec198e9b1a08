#!/usr/bin/env node
/**
 * Minimal OpenAI-compatible upstream for `npm run bench` (plain node:http, no dependencies).
 *
 *   POST /v1/chat/completions  → a fixed chat.completion with usage; with `"stream": true` an SSE
 *                                stream of STREAM_CHUNKS content chunks STREAM_GAP_MS apart (the first
 *                                at once), then a `choices: []` usage chunk and `[DONE]`
 *   POST /v1/embeddings        → deterministic hashed bag-of-words vectors (float or base64)
 *   POST /v1/messages          → (Anthropic Messages API, key in x-api-key) a fixed message with the
 *                                same usage
 *   GET  /v1/models            → a one-model list
 *
 * Run as a child process (`node scripts/bench/fake-upstream.js`): it listens on 127.0.0.1 with a
 * random port and prints one JSON line `{"port": N}` to stdout. It reads and discards request
 * bodies, so the direct measurement costs about the same on the wire as the gateway's upstream call.
 */
'use strict';
const http = require('node:http');

const API_KEY = process.env.FAKE_UPSTREAM_API_KEY || 'sk-bench-upstream';
/** usage the fake reports on every completion (the gateway bills exactly this) */
const USAGE = Object.freeze({ prompt_tokens: 12, completion_tokens: 8, total_tokens: 20 });
/** the streamed answer: 8 chunks (one per completion token), 125 ms apart after the first (≈ 0.9 s a stream) */
const STREAM_PIECES = ['Hello', '!', ' This', ' is', ' the', ' bench', ' upstream', '.'];
const STREAM_GAP_MS = Number(process.env.FAKE_UPSTREAM_STREAM_GAP_MS || 125);

function streamChunk(model, delta, finish) {
  return `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1_700_000_000, model, system_fingerprint: 'fp_bench', choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`;
}

/** Writes the SSE answer: the first chunk at once (so time-to-first-byte is the wire's), the rest paced. */
function sendStream(res, model) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const events = STREAM_PIECES.map((text, i) =>
    streamChunk(model, i === 0 ? { role: 'assistant', content: text, refusal: null } : { content: text }, null),
  );
  events.push(streamChunk(model, {}, 'stop'));
  events.push(
    `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1_700_000_000, model, system_fingerprint: 'fp_bench', choices: [], usage: USAGE })}\n\ndata: [DONE]\n\n`,
  );
  let i = 0;
  const next = () => {
    if (res.destroyed) return;
    res.write(events[i++]);
    if (i < events.length - 2) setTimeout(next, STREAM_GAP_MS);
    else {
      while (i < events.length) res.write(events[i++]);
      res.end();
    }
  };
  next();
}

function completionBody(model) {
  return JSON.stringify({
    id: 'chatcmpl-bench',
    object: 'chat.completion',
    created: 1_700_000_000,
    model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: 'Hello! This is the bench upstream.', refusal: null },
        logprobs: null,
        finish_reason: 'stop',
      },
    ],
    usage: {
      ...USAGE,
      prompt_tokens_details: { cached_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0 },
    },
    system_fingerprint: 'fp_bench',
  });
}

function messageBody(model) {
  return JSON.stringify({
    id: 'msg_bench',
    type: 'message',
    role: 'assistant',
    model,
    content: [{ type: 'text', text: 'Hello! This is the bench upstream.' }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: {
      input_tokens: USAGE.prompt_tokens,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      output_tokens: USAGE.completion_tokens,
    },
  });
}

/** A unit vector of `dims` from the words of `text` (feature hashing): same text → same vector. */
function embedText(text, dims) {
  const v = new Float32Array(dims);
  for (const w of String(text)
    .toLowerCase()
    .match(/[\p{L}\p{N}]+/gu) ?? []) {
    let h = 2166136261;
    for (let i = 0; i < w.length; i++) h = Math.imul(h ^ w.charCodeAt(i), 16777619);
    v[(h >>> 0) % dims] += 1;
  }
  let n = 0;
  for (const x of v) n += x * x;
  n = Math.sqrt(n) || 1;
  for (let i = 0; i < dims; i++) v[i] /= n;
  return v;
}

function embeddingsBody(req) {
  const input = Array.isArray(req.input) ? req.input : [req.input];
  const dims = req.dimensions || 1536;
  let tokens = 0;
  const data = input.map((text, index) => {
    tokens += String(text).split(/\s+/).filter(Boolean).length;
    const v = embedText(text, dims);
    return {
      object: 'embedding',
      index,
      embedding: req.encoding_format === 'base64' ? Buffer.from(v.buffer).toString('base64') : Array.from(v),
    };
  });
  return JSON.stringify({
    object: 'list',
    data,
    model: req.model,
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  });
}

function send(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

function createFakeUpstream() {
  const cache = new Map();
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/v1/messages') {
        if (req.headers['x-api-key'] !== API_KEY)
          return send(
            res,
            401,
            JSON.stringify({ type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } }),
          );
        let model = 'claude-sonnet-4-20250514';
        try {
          model = JSON.parse(Buffer.concat(chunks).toString('utf8')).model || model;
        } catch {
          return send(
            res,
            400,
            JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: 'invalid JSON' } }),
          );
        }
        let body = cache.get(`messages:${model}`);
        if (body === undefined) {
          body = messageBody(model);
          cache.set(`messages:${model}`, body);
        }
        return send(res, 200, body);
      }
      if (req.headers.authorization !== `Bearer ${API_KEY}`) {
        return send(
          res,
          401,
          JSON.stringify({
            error: {
              message: 'Incorrect API key provided.',
              type: 'invalid_request_error',
              param: null,
              code: 'invalid_api_key',
            },
          }),
        );
      }
      if (req.method === 'GET' && req.url === '/v1/models') {
        return send(
          res,
          200,
          JSON.stringify({
            object: 'list',
            data: [{ id: 'gpt-4o-mini', object: 'model', created: 1_700_000_000, owned_by: 'bench' }],
          }),
        );
      }
      if (req.method === 'POST' && req.url === '/v1/embeddings') {
        try {
          return send(res, 200, embeddingsBody(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
        } catch {
          return send(
            res,
            400,
            JSON.stringify({
              error: {
                message: 'We could not parse the JSON body of your request.',
                type: 'invalid_request_error',
                param: null,
                code: null,
              },
            }),
          );
        }
      }
      if (req.method === 'POST' && req.url === '/v1/chat/completions') {
        let model = 'gpt-4o-mini';
        let stream = false;
        try {
          const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          model = parsed.model || model;
          stream = parsed.stream === true;
        } catch {
          return send(
            res,
            400,
            JSON.stringify({
              error: {
                message: 'We could not parse the JSON body of your request.',
                type: 'invalid_request_error',
                param: null,
                code: null,
              },
            }),
          );
        }
        if (stream) return sendStream(res, model);
        let body = cache.get(model);
        if (body === undefined) {
          body = completionBody(model);
          cache.set(model, body);
        }
        return send(res, 200, body);
      }
      return send(
        res,
        404,
        JSON.stringify({
          error: {
            message: `Invalid URL (${req.method} ${req.url})`,
            type: 'invalid_request_error',
            param: null,
            code: null,
          },
        }),
      );
    });
  });
  server.keepAliveTimeout = 65_000;
  return server;
}

module.exports = { createFakeUpstream, API_KEY, USAGE };

if (require.main === module) {
  const server = createFakeUpstream();
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
  });
  const stop = () => server.close(() => process.exit(0)) && server.closeAllConnections();
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
