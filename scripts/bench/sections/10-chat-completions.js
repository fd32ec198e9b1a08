/**
 * Bench section: non-streaming POST /v1/chat/completions (gpt-4o-mini) through the gateway vs.
 * directly against the same fake upstream, at autocannon's fixed request rate (which arrives in
 * bursts: informational, no latency target — those are 05-overhead.js's), with auth + reservation +
 * settlement + ledger on. Reports req/s, p50/p99 and the latency the gateway adds, and checks that
 * billing really happened (the balance moved by exactly the catalog price × the fake's usage per
 * successful request).
 */
'use strict';

const MODEL = 'gpt-4o-mini';
const BODY = {
  model: MODEL,
  messages: [{ role: 'user', content: 'Say hello in one short sentence.' }],
  max_tokens: 32,
};
const { toMicro, settledBalanceMicro } = require('../lib');

module.exports = {
  name: 'chat-completions',
  title:
    'POST /v1/chat/completions (non-stream, gpt-4o-mini) under autocannon bursts: gateway vs direct, billing checked',

  /** @param {import('../../bench').BenchContext} ctx */
  async run(ctx) {
    const { lib, gateway, upstream, settings, log } = ctx;
    const checks = [];
    const check = (ok, text) => {
      checks.push({ ok, text });
      log(`  ${ok ? 'ok  ' : 'FAIL'} ${text}`);
    };

    // price per request from the gateway's own catalog × the usage the fake reports
    const catalog = await lib.getJson(`${gateway.url}/api/v1/models`, { authorization: `Bearer ${gateway.apiKey}` });
    const entry = catalog.data.find((m) => m.key === MODEL);
    const perRequestMicro =
      (upstream.usage.prompt_tokens * toMicro(entry.pricing.input_rub_per_1m)) / 1e6 +
      (upstream.usage.completion_tokens * toMicro(entry.pricing.output_rub_per_1m)) / 1e6;

    // sanity: one call, billed, with the cost object and header
    const probe = await lib.postJson(
      `${gateway.url}/v1/chat/completions`,
      { authorization: `Bearer ${gateway.apiKey}` },
      BODY,
    );
    check(
      probe.status === 200 && probe.body.choices?.[0]?.message?.content === 'Hello! This is the bench upstream.',
      `probe answered 200 with the upstream text (status ${probe.status})`,
    );
    check(
      toMicro(probe.body.cost?.total_cost_rub ?? -1) === perRequestMicro &&
        probe.headers.get('x-gateway-cost-rub') === String(probe.body.cost?.total_cost_rub),
      `probe cost ${probe.body.cost?.total_cost_rub} RUB = ${perRequestMicro} µRUB (catalog ${entry.pricing.input_rub_per_1m}/${entry.pricing.output_rub_per_1m} per 1M × usage ${upstream.usage.prompt_tokens}/${upstream.usage.completion_tokens})`,
    );

    const load = { rate: settings.rate, connections: settings.connections, body: BODY };
    const direct = {
      url: `${upstream.url}/v1/chat/completions`,
      headers: { authorization: `Bearer ${upstream.apiKey}` },
    };
    const viaGateway = {
      url: `${gateway.url}/v1/chat/completions`,
      headers: { authorization: `Bearer ${gateway.apiKey}` },
    };

    log(
      `  direct:  warm-up ${settings.warmup} s, then ${settings.duration} s at ${settings.rate} req/s, ${settings.connections} connections`,
    );
    await lib.measure({ ...load, ...direct, duration: settings.warmup });
    const d = await lib.measure({ ...load, ...direct, duration: settings.duration });

    log(
      `  gateway: warm-up ${settings.warmup} s, then ${settings.duration} s at ${settings.rate} req/s, ${settings.connections} connections`,
    );
    await lib.measure({ ...load, ...viaGateway, duration: settings.warmup });
    const before = await settledBalanceMicro(ctx.gateway);
    const g = await lib.measure({ ...load, ...viaGateway, duration: settings.duration });
    const after = await settledBalanceMicro(ctx.gateway);

    const moved = before - after;
    const charges = moved / perRequestMicro;
    // responses that complete after autocannon stops counting are billed but not counted (≤ connections)
    check(
      Number.isInteger(charges) && charges >= g.ok && charges <= g.ok + settings.connections,
      `billing on: balance moved ${(moved / 1e6).toFixed(6)} RUB = ${charges} × ${perRequestMicro} µRUB for ${g.ok} counted 2xx responses`,
    );
    const ledger = await lib.getJson(`${gateway.url}/api/v1/usage?limit=1`, {
      authorization: `Bearer ${gateway.apiKey}`,
    });
    const last = ledger.data[0];
    check(
      last &&
        last.kind === 'charge' &&
        last.model === MODEL &&
        last.endpoint === '/v1/chat/completions' &&
        toMicro(Math.abs(last.amount_rub)) === perRequestMicro,
      `ledger: newest entry is a ${perRequestMicro} µRUB charge for ${MODEL} on /v1/chat/completions`,
    );
    check(
      d.non2xx + d.errors + d.timeouts === 0,
      `direct run: ${d.non2xx} non-2xx, ${d.errors} errors, ${d.timeouts} timeouts`,
    );
    check(
      g.non2xx + g.errors + g.timeouts === 0,
      `gateway run: ${g.non2xx} non-2xx, ${g.errors} errors, ${g.timeouts} timeouts`,
    );

    // Informational serial pass: ONE connection at a low rate, so no request ever waits behind
    // another — the gateway's own per-request overhead. (autocannon's overallRate sends each
    // connection's per-second quota back-to-back at every second tick, so at 20 connections requests
    // arrive in bursts of 20 and the p50 above includes queueing behind the rest of the burst.)
    const lowRows = [];
    if (settings.lowRate > 0) {
      const low = { ...load, connections: 1, rate: settings.lowRate, duration: settings.lowDuration };
      log(`  serial: ${settings.lowDuration} s at ${settings.lowRate} req/s on 1 connection, direct then gateway`);
      lowRows.push({
        target: `direct, 1 conn @ ${settings.lowRate} req/s`,
        ...(await lib.measure({ ...low, ...direct })),
      });
      lowRows.push({
        target: `gateway, 1 conn @ ${settings.lowRate} req/s`,
        ...(await lib.measure({ ...low, ...viaGateway })),
      });
    }

    const addedP50 = g.p50 - d.p50;
    const addedP99 = g.p99 - d.p99;
    return {
      rows: [
        { target: `direct @ ${settings.rate} req/s`, ...d },
        { target: `gateway @ ${settings.rate} req/s`, ...g },
        ...lowRows,
      ],
      comparison: {
        ratio: g.rps / d.rps,
        addedP50,
        addedP99,
        serialAddedP50: lowRows.length ? lowRows[1].p50 - lowRows[0].p50 : NaN,
        serialAddedP99: lowRows.length ? lowRows[1].p99 - lowRows[0].p99 : NaN,
        note: `bursts of ${settings.connections} (autocannon); latency targets: the overhead section`,
      },
      checks,
    };
  },
};
