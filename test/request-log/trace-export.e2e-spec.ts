/**
 * OpenTelemetry export on the SDK: with an OTLP endpoint set, an in-test collector receives one span
 * per model call over each protocol the gateway offers (OTLP/HTTP JSON, OTLP/HTTP protobuf, OTLP/gRPC),
 * with the GenAI and gateway attributes, the caller's trace as parent, and an error status for a
 * refused call. A collector that refuses or hangs fails no request: spans are counted as failed or
 * dropped in /metrics instead.
 */
import request from 'supertest';
import { TraceExporter } from '@app/request-log';
import {
  FakeOpenAI,
  OtlpReceiver,
  type OtlpReceiverMode,
  type OtlpReceiverProtocol,
  type ReceivedSpan,
} from '../fakes';
import { AdminClient } from '../support/admin-client';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import { FAKE_OPENAI_KEY, openAiEnv } from '../rerank/rerank-helpers';

const CHAT = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] };

interface Setup {
  t: TestApp;
  fake: FakeOpenAI;
  receiver: OtlpReceiver;
  close(): Promise<void>;
}

async function setup(protocol: OtlpReceiverProtocol, mode: OtlpReceiverMode, env: Record<string, string> = {}) {
  const receiver = await OtlpReceiver.start(protocol, mode);
  const fake = await FakeOpenAI.start({ apiKey: FAKE_OPENAI_KEY });
  const t = await createTestApp({
    env: {
      ...openAiEnv(fake),
      INGEST_CONCURRENCY: '0',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
      OTEL_EXPORTER_OTLP_HEADERS: 'x-collector-token=s3cret',
      OTEL_SERVICE_NAME: 'gateway-under-test',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=test,service.namespace=gw',
      OTEL_BSP_SCHEDULE_DELAY: '20',
      ...env,
    },
  });
  return {
    t,
    fake,
    receiver,
    close: async () => {
      await receiver.close();
      await t.close();
      await fake.close();
    },
  } satisfies Setup;
}

async function spanOf(s: Setup, requestId: string): Promise<ReceivedSpan> {
  for (let i = 0; i < 100; i++) {
    await s.t.get(TraceExporter).flush();
    const found = s.receiver.spans().filter((x) => x.attributes['gateway.request_id'] === requestId);
    if (found.length) {
      expect(found).toHaveLength(1);
      return found[0];
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`no span for ${requestId}`);
}

async function spanMetric(s: Setup, result: string): Promise<number> {
  const text = (await request(s.t.url).get('/metrics')).text;
  const line = text.split('\n').find((l) => l.startsWith(`gateway_trace_spans_total{result="${result}"}`));
  return line ? Number(line.split(' ').pop()) : 0;
}

describe.each<OtlpReceiverProtocol>(['http/json', 'http/protobuf', 'grpc'])(
  `trace export over %s (${backendKind()})`,
  (protocol) => {
    let s: Setup;
    beforeAll(async () => {
      s = await setup(protocol, 'ok');
    });
    afterAll(() => s?.close());

    it('a chat completion: one SERVER span with the GenAI and gateway attributes', async () => {
      const { teamId, apiKey } = await new AdminClient(s.t.url).teamWithKey(100, 'traced');
      s.fake.enqueue({ text: 'traced answer', usage: { input: 12, output: 5 } });
      const res = await request(s.t.url).post('/v1/chat/completions').set('api-key', apiKey).send(CHAT);
      expect(res.status).toBe(200);
      const span = await spanOf(s, res.headers['x-request-id'] as string);
      const usage = await request(s.t.url).get('/api/v1/usage?limit=1').set('api-key', apiKey);
      const batch = s.receiver.received.find((r) => r.spans.includes(span))!;
      const expected = {
        'http/json': { path: '/v1/traces', contentType: 'application/json' },
        'http/protobuf': { path: '/v1/traces', contentType: 'application/x-protobuf' },
        grpc: { path: '/opentelemetry.proto.collector.trace.v1.TraceService/Export' },
      }[protocol];
      expect(batch).toMatchObject({ ...expected, token: 's3cret' });
      expect(span.resource).toMatchObject({
        'service.name': 'gateway-under-test',
        'deployment.environment': 'test',
        'service.namespace': 'gw',
        'telemetry.sdk.name': 'opentelemetry',
      });
      expect(span.scope).toBe('model-gateway.request-log');
      expect(span.traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(span.spanId).toMatch(/^[0-9a-f]{16}$/);
      expect(span.parentSpanId).toBeUndefined();
      expect(span.name).toBe('chat gpt-4o-mini');
      expect(span.kind).toBe(2); // SPAN_KIND_SERVER
      expect(span.endTimeUnixNano).toBeGreaterThanOrEqual(span.startTimeUnixNano);
      expect(span.status.code).toBe(1);
      expect(span.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'openai',
        'gen_ai.system': 'openai',
        'gen_ai.request.model': 'gpt-4o-mini',
        'gen_ai.response.model': 'gpt-4o-mini',
        'gen_ai.usage.input_tokens': 12,
        'gen_ai.usage.output_tokens': 5,
        'http.request.method': 'POST',
        'http.route': '/v1/chat/completions',
        'http.response.status_code': 200,
        'gateway.team_id': teamId,
        'gateway.api_key_prefix': apiKey.slice(0, 11),
        'gateway.cost_rub': -usage.body.data[0].amount_rub,
        'gateway.attempts': 1,
        'gateway.stream': false,
      });
    });

    it("a caller's W3C traceparent: the span joins its trace as a child", async () => {
      const { apiKey } = await new AdminClient(s.t.url).teamWithKey(100, 'propagated');
      s.fake.enqueue({ text: 'x', usage: { input: 1, output: 1 } });
      const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
      const res = await request(s.t.url)
        .post('/v1/chat/completions')
        .set('api-key', apiKey)
        .set('traceparent', `00-${traceId}-00f067aa0ba902b7-00`)
        .send(CHAT);
      expect(res.status).toBe(200);
      const span = await spanOf(s, res.headers['x-request-id'] as string);
      expect(span).toMatchObject({ traceId, parentSpanId: '00f067aa0ba902b7' });
      expect(span.spanId).not.toBe('00f067aa0ba902b7');
    });

    it('a refused call: a span with an error status and error.type', async () => {
      const { apiKey } = await new AdminClient(s.t.url).teamWithKey(0, 'broke');
      const res = await request(s.t.url).post('/v1/chat/completions').set('api-key', apiKey).send(CHAT);
      expect(res.status).toBe(402);
      const span = await spanOf(s, res.headers['x-request-id'] as string);
      expect(span.status).toMatchObject({ code: 2, message: res.body.error.code });
      expect(span.attributes).toMatchObject({ 'http.response.status_code': 402, 'error.type': res.body.error.code });
    });
  },
);

describe(`trace export to a collector that fails or hangs (${backendKind()})`, () => {
  async function burst(s: Setup, n: number): Promise<number[]> {
    const { apiKey } = await new AdminClient(s.t.url).teamWithKey(100, 'burst');
    for (let i = 0; i < n; i++) s.fake.enqueue({ text: 'x', usage: { input: 1, output: 1 } });
    const statuses = await Promise.all(
      Array.from({ length: n }, () =>
        request(s.t.url)
          .post('/v1/chat/completions')
          .set('api-key', apiKey)
          .send(CHAT)
          .then((r) => r.status),
      ),
    );
    return statuses;
  }

  it('refusing: every request answers, the spans are counted as failed', async () => {
    const s = await setup('http/protobuf', 'fail');
    try {
      expect(await burst(s, 10)).toEqual(Array(10).fill(200));
      for (let i = 0; i < 100 && (await spanMetric(s, 'failed')) < 10; i++) {
        await s.t.get(TraceExporter).flush();
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(await spanMetric(s, 'failed')).toBe(10);
      expect(await spanMetric(s, 'exported')).toBe(0);
    } finally {
      await s.close();
    }
  });

  it('hanging: every request answers; beyond the queue bound spans are dropped and counted', async () => {
    const s = await setup('grpc', 'hang', {
      OTEL_BSP_MAX_QUEUE_SIZE: '4',
      OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '2',
      OTEL_EXPORTER_OTLP_TIMEOUT: '20000',
    });
    try {
      expect(await burst(s, 12)).toEqual(Array(12).fill(200));
      // at most 4 spans wait or travel at once; the other 8 were dropped, none exported
      await new Promise((r) => setTimeout(r, 200));
      expect(await spanMetric(s, 'dropped')).toBe(8);
      expect(await spanMetric(s, 'exported')).toBe(0);
      expect(s.receiver.received).toHaveLength(0);
    } finally {
      await s.close();
    }
  });
});
