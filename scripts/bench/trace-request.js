'use strict';
/**
 * Where one request's time goes, for the bench's gateway child:
 *
 *   BENCH_GATEWAY_NODE_ARGS="--require ./scripts/bench/trace-request.js" BENCH_CHILD_OUTPUT_DIR=/tmp/out \
 *   BENCH_SECTIONS=overhead BENCH_OVERHEAD_PARTS=seq node scripts/bench.js
 *
 * Marks, for each POST /v1/chat/completions: its arrival, the upstream request's creation, response
 * headers and end (undici's diagnostics channels), the charge's queueing in the group commit and the
 * settling of its promise, and the response's `finish`. Meaningful one request at a time (the
 * sequential part): the marks are the request in flight's. Prints the mean of each segment over each
 * window of TRACE_EVERY requests (500) after the first TRACE_SKIP (1,500: the bench's warm-up) to stderr,
 * which the bench keeps in BENCH_CHILD_OUTPUT_DIR. Works on the built gateway (dist/).
 */
const path = require('node:path');
const http = require('node:http');
const diagnostics = require('node:diagnostics_channel');

const ROOT = path.resolve(__dirname, '..', '..');
const SKIP = Number(process.env.TRACE_SKIP || 1500);
const EVERY = Number(process.env.TRACE_EVERY || 500);
const SEGMENTS = ['upstreamStart', 'upstreamHeaders', 'upstreamDone', 'chargeQueued', 'chargeDone', 'end'];

const now = () => Number(process.hrtime.bigint()) / 1e6;
let current = null;
let seen = 0;
let window = { n: 0, sums: {} };

function mark(name) {
  if (current && current[name] === undefined) current[name] = now();
}

/** Wraps a group commit's `run` so the request in flight records when its unit was queued and committed. */
function traceGroupCommit(file, className) {
  const proto = require(path.join(ROOT, 'dist/libs/database/src', file))[className].prototype;
  const run = proto.run;
  proto.run = function traced(...args) {
    mark('chargeQueued');
    const done = run.apply(this, args);
    done.then(
      () => mark('chargeDone'),
      () => undefined,
    );
    return done;
  };
}

// after the main module's first tick, when the gateway's modules are loaded
setImmediate(() => {
  traceGroupCommit('pg-group-commit.js', 'PgGroupCommit');
  traceGroupCommit('sqlite-group-commit.js', 'SqliteGroupCommit');
  diagnostics.subscribe('undici:request:create', () => mark('upstreamStart'));
  diagnostics.subscribe('undici:request:headers', () => mark('upstreamHeaders'));
  diagnostics.subscribe('undici:request:trailers', () => mark('upstreamDone'));
});

function report() {
  const parts = SEGMENTS.filter((k) => window.sums[k] !== undefined).map(
    (k) => `${k}=${(window.sums[k] / window.n).toFixed(3)}`,
  );
  process.stderr.write(`trace-request: ${window.n} requests, mean ms per segment: ${parts.join(' ')}\n`);
  window = { n: 0, sums: {} };
}

const emit = http.Server.prototype.emit;
http.Server.prototype.emit = function traced(event, req, res) {
  if (event === 'request' && req.method === 'POST' && req.url === '/v1/chat/completions') {
    const marks = { arrival: now() };
    current = marks;
    res.once('finish', () => {
      marks.end = now();
      if (++seen <= SKIP) return;
      let previous = marks.arrival;
      for (const k of SEGMENTS) {
        if (marks[k] === undefined) continue;
        window.sums[k] = (window.sums[k] || 0) + (marks[k] - previous);
        previous = marks[k];
      }
      if (++window.n >= EVERY) report();
    });
  }
  return emit.apply(this, arguments);
};
