/**
 * Bench section: POST /v1/messages (the Anthropic Messages API, non-streaming) beside
 * POST /v1/chat/completions, against the same fake upstream:
 *   - claude-sonnet-4 through /v1/messages (native pass-through) vs the fake's /v1/messages directly;
 *   - gpt-4o-mini through /v1/messages (translated) vs gpt-4o-mini through /v1/chat/completions.
 * One connection at a low rate (no request waits behind another), so the difference is the
 * gateway's own per-request cost of each path. Checks that each path answers and bills.
 */
'use strict';

const { toMicro } = require('../lib');

const PROMPT = 'Say hello in one short sentence.';
const MESSAGES_BODY = (model) => ({ model, max_tokens: 32, messages: [{ role: 'user', content: PROMPT }] });
const COMPLETIONS_BODY = { model: 'gpt-4o-mini', max_tokens: 32, messages: [{ role: 'user', content: PROMPT }] };

module.exports = {
  name: 'messages',
  title: 'POST /v1/messages (Anthropic-compatible, non-stream) beside /v1/chat/completions: 1 connection, low rate',

  /** @param {import('../../bench').BenchContext} ctx */
  async run(ctx) {
    const { lib, gateway, upstream, settings, log } = ctx;
    const checks = [];
    const check = (ok, text) => {
      checks.push({ ok, text });
      log(`  ${ok ? 'ok  ' : 'FAIL'} ${text}`);
    };
    const gw = { 'x-api-key': gateway.apiKey, 'anthropic-version': '2023-06-01' };

    const catalog = await lib.getJson(`${gateway.url}/api/v1/models`, { authorization: `Bearer ${gateway.apiKey}` });
    const price = (key) => {
      const p = catalog.data.find((m) => m.key === key).pricing;
      return (
        (upstream.usage.prompt_tokens * toMicro(p.input_rub_per_1m)) / 1e6 +
        (upstream.usage.completion_tokens * toMicro(p.output_rub_per_1m)) / 1e6
      );
    };
    for (const model of ['claude-sonnet-4', 'gpt-4o-mini']) {
      const probe = await lib.postJson(`${gateway.url}/v1/messages`, gw, MESSAGES_BODY(model));
      check(
        probe.status === 200 &&
          probe.body.type === 'message' &&
          probe.body.content?.[0]?.text === 'Hello! This is the bench upstream.' &&
          toMicro(probe.body.cost?.total_cost_rub ?? -1) === price(model),
        `probe ${model}: 200, the upstream text, cost ${probe.body.cost?.total_cost_rub} RUB = ${price(model)} µRUB (status ${probe.status})`,
      );
    }

    const rate = settings.lowRate > 0 ? settings.lowRate : 50;
    const load = { rate, connections: 1, duration: settings.duration };
    const targets = [
      {
        target: 'direct: fake /v1/messages',
        url: `${upstream.url}/v1/messages`,
        headers: { 'x-api-key': upstream.apiKey },
        body: MESSAGES_BODY('claude-sonnet-4-20250514'),
      },
      {
        target: 'gateway /v1/messages claude-sonnet-4 (native)',
        url: `${gateway.url}/v1/messages`,
        headers: gw,
        body: MESSAGES_BODY('claude-sonnet-4'),
      },
      {
        target: 'gateway /v1/chat/completions gpt-4o-mini',
        url: `${gateway.url}/v1/chat/completions`,
        headers: { authorization: `Bearer ${gateway.apiKey}` },
        body: COMPLETIONS_BODY,
      },
      {
        target: 'gateway /v1/messages gpt-4o-mini (translated)',
        url: `${gateway.url}/v1/messages`,
        headers: gw,
        body: MESSAGES_BODY('gpt-4o-mini'),
      },
    ];
    const rows = [];
    for (const t of targets) {
      log(`  ${t.target}: warm-up ${settings.warmup} s, then ${settings.duration} s at ${rate} req/s on 1 connection`);
      await lib.measure({ ...load, ...t, duration: settings.warmup });
      const r = await lib.measure({ ...load, ...t });
      rows.push({ target: t.target, ...r });
      check(
        r.non2xx + r.errors + r.timeouts === 0,
        `${t.target}: ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts`,
      );
    }
    const [direct, native, completions, translated] = rows;
    log(
      `  added p50: native /v1/messages ${lib.signedMs(native.p50 - direct.p50)} ms over the upstream; translated /v1/messages ${lib.signedMs(translated.p50 - completions.p50)} ms over /v1/chat/completions (same model)`,
    );
    return {
      rows,
      comparison: {
        ratio: translated.rps / completions.rps,
        addedP50: translated.p50 - completions.p50,
        addedP99: translated.p99 - completions.p99,
        serialAddedP50: native.p50 - direct.p50,
        serialAddedP99: native.p99 - direct.p99,
        note: 'added: /v1/messages vs /v1/chat/completions (gpt-4o-mini); serial added: native /v1/messages vs the upstream',
      },
      checks,
    };
  },
};
