/**
 * Bench section: the CPU the request log costs per request (docs/request-log.md). Two teams call
 * POST /v1/chat/completions through the same gateway: one with `request_log_bodies: none` (no
 * record: the log off for it) and one at the default `metadata` (a record built, queued and written
 * in batches). The gateway process's user+system CPU (/proc/<pid>/stat) is read over closed-loop
 * rounds that alternate between the two (so drift of a shared machine hits both), and the median
 * round of each is reported side by side with the difference; the target is ≤ 0.05 ms per request.
 * Checks: no failed request, the metadata team's calls are in its log and the other team's are not.
 *
 * Env: BENCH_REQUEST_LOG_REQUESTS (5000 per round), BENCH_REQUEST_LOG_ROUNDS (3 per team),
 * BENCH_REQUEST_LOG_CONCURRENCY (8). Alone: BENCH_SECTIONS=request-log npm run bench.
 */
'use strict';

const MODEL = 'gpt-4o-mini';
const BODY = {
  model: MODEL,
  messages: [{ role: 'user', content: 'Say hello in one short sentence.' }],
  max_tokens: 32,
};
const TARGET_MS = 0.05;
const num = (name, dflt) => {
  const v = Number(process.env[name] ?? dflt);
  return Number.isFinite(v) && v > 0 ? v : dflt;
};
const S = {
  requests: num('BENCH_REQUEST_LOG_REQUESTS', 5000),
  rounds: num('BENCH_REQUEST_LOG_ROUNDS', 3),
  concurrency: num('BENCH_REQUEST_LOG_CONCURRENCY', 8),
};

async function adminCall(ctx, method, path, body) {
  const res = await fetch(`${ctx.gateway.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${ctx.gateway.adminToken}` },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** A team with a large balance and a key, at the given request-log level. */
async function team(ctx, name, level) {
  const t = await adminCall(ctx, 'POST', '/api/v1/admin/teams', { name, balance_rub: 1_000_000 });
  await adminCall(ctx, 'PATCH', `/api/v1/admin/teams/${t.id}`, { request_log_bodies: level });
  const key = await adminCall(ctx, 'POST', `/api/v1/admin/teams/${t.id}/api-keys`, { name });
  return { id: t.id, apiKey: key.api_key };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

module.exports = {
  name: 'request-log',
  title: `Request log: gateway CPU per request with the log off (team at none) vs on (metadata), target ≤ ${TARGET_MS} ms`,

  /** @param {import('../../bench').BenchContext} ctx */
  async run(ctx) {
    const { lib, gateway, log } = ctx;
    const checks = [];
    const check = (ok, text) => {
      checks.push({ ok, text });
      log(`  ${ok ? 'ok  ' : 'FAIL'} ${text}`);
    };
    const teams = {
      off: await team(ctx, 'bench-log-off', 'none'),
      metadata: await team(ctx, 'bench-log-on', 'metadata'),
    };
    const targets = Object.fromEntries(
      Object.entries(teams).map(([n, t]) => [
        n,
        lib.loadTarget(
          `${gateway.url}/v1/chat/completions`,
          { authorization: `Bearer ${t.apiKey}` },
          BODY,
          S.concurrency,
        ),
      ]),
    );
    const cpu = { off: [], metadata: [] };
    const last = {};
    let failed = 0;
    try {
      for (const n of Object.keys(targets))
        await lib.closedLoop(targets[n], { count: Math.min(1000, S.requests), concurrency: S.concurrency });
      for (let round = 0; round < S.rounds; round++)
        for (const n of round % 2 === 0 ? ['off', 'metadata'] : ['metadata', 'off']) {
          const c0 = lib.processCpuMs(gateway.pid);
          const r = await lib.closedLoop(targets[n], { count: S.requests, concurrency: S.concurrency });
          cpu[n].push((lib.processCpuMs(gateway.pid) - c0) / S.requests);
          failed += r.failed;
          last[n] = { rps: r.rps, p50: r.p50, p99: r.p99, max: r.max, non2xx: r.failed, errors: 0, timeouts: 0 };
        }
    } finally {
      await Promise.all(Object.values(targets).map((t) => t.close()));
    }
    check(failed === 0, `${failed} failed requests over ${2 * S.rounds} rounds of ${S.requests}`);
    await new Promise((r) => setTimeout(r, 2000)); // one flush interval, then the records are in
    const logged = async (t) =>
      (await lib.getJson(`${gateway.url}/api/v1/requests?limit=1`, { authorization: `Bearer ${t.apiKey}` })).data
        .length;
    check(
      (await logged(teams.metadata)) === 1 && (await logged(teams.off)) === 0,
      'metadata team logged, off team not',
    );
    const off = median(cpu.off);
    const on = median(cpu.metadata);
    const added = on - off;
    log(
      `  CPU per request (median of ${S.rounds} rounds): off ${off.toFixed(3)} ms, metadata ${on.toFixed(3)} ms, added ${added.toFixed(3)} ms (target ≤ ${TARGET_MS})`,
    );
    return {
      rows: ['off', 'metadata'].map((n) => ({
        target: `team at ${n === 'off' ? 'none (log off)' : 'metadata (log on)'}, last round`,
        ...last[n],
      })),
      checks,
      requestLog: { offMs: off, metadataMs: on, addedMs: added, meetsTarget: added <= TARGET_MS },
    };
  },

  report(results, lib, log) {
    log('  CPU ms per request: backend | log off | metadata | added | target');
    for (const r of results)
      log(
        `  ${r.backend.label} | ${r.requestLog.offMs.toFixed(3)} | ${r.requestLog.metadataMs.toFixed(3)} | ${r.requestLog.addedMs.toFixed(3)} | ${r.requestLog.meetsTarget ? 'met' : 'missed'} (≤ ${TARGET_MS})`,
      );
  },
};
