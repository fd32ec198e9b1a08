/**
 * OpenTelemetry export: with OTEL_EXPORTER_OTLP_ENDPOINT set, an in-test OTLP/HTTP receiver gets one
 * span per model call (ExportTraceServiceRequest JSON) with the GenAI attributes and the gateway's
 * own; a refused call is a span with an error status. Unset endpoint: nothing is sent.
 */
import { createServer, IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { TraceExporter } from '@app/request-log';
import { FakeOpenAI } from '../fakes';
import { AdminClient } from '../support/admin-client';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import { FAKE_OPENAI_KEY, openAiEnv } from '../rerank/rerank-helpers';

interface Attr {
  key: string;
  value: Record<string, unknown>;
}
interface Span {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: Attr[];
  status: { code: number };
}
interface Received {
  path: string;
  contentType: string | undefined;
  auth: string | undefined;
  body: {
    resourceSpans: { resource: { attributes: Attr[] }; scopeSpans: { spans: Span[] }[] }[];
  };
}

function attrs(span: Span): Record<string, unknown> {
  return Object.fromEntries(span.attributes.map((a) => [a.key, Object.values(a.value)[0]]));
}

describe(`trace export (${backendKind()})`, () => {
  let t: TestApp;
  let fake: FakeOpenAI;
  let receiver: Server;
  const received: Received[] = [];

  beforeAll(async () => {
    receiver = createServer((req: IncomingMessage, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({
          path: req.url ?? '',
          contentType: req.headers['content-type'],
          auth: req.headers['x-collector-token'] as string | undefined,
          body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Received['body'],
        });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const port = (receiver.address() as AddressInfo).port;
    fake = await FakeOpenAI.start({ apiKey: FAKE_OPENAI_KEY });
    t = await createTestApp({
      env: {
        ...openAiEnv(fake),
        INGEST_CONCURRENCY: '0',
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
        OTEL_EXPORTER_OTLP_HEADERS: 'x-collector-token=s3cret',
        OTEL_SERVICE_NAME: 'gateway-under-test',
        OTEL_BSP_SCHEDULE_DELAY: '20',
      },
    });
  });
  afterAll(async () => {
    await t?.close();
    await fake?.close();
    await new Promise((r) => receiver?.close(r));
  });

  const spans = (): Span[] =>
    received.flatMap((r) => r.body.resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((s) => s.spans)));
  async function spanOf(requestId: string): Promise<Span> {
    for (let i = 0; i < 100; i++) {
      await t.get(TraceExporter).flush();
      const found = spans().filter((s) => attrs(s)['gateway.request_id'] === requestId);
      if (found.length) {
        expect(found).toHaveLength(1);
        return found[0];
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(`no span for ${requestId}`);
  }

  it('a chat completion: one span with the GenAI and gateway attributes', async () => {
    const { teamId, apiKey } = await new AdminClient(t.url).teamWithKey(100, 'traced');
    fake.enqueue({ text: 'traced answer', usage: { input: 12, output: 5 } });
    const res = await request(t.url)
      .post('/v1/chat/completions')
      .set('api-key', apiKey)
      .send({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    expect(res.status).toBe(200);
    const span = await spanOf(res.headers['x-request-id'] as string);
    const usage = await request(t.url).get('/api/v1/usage?limit=1').set('api-key', apiKey);
    expect(received[0]).toMatchObject({ path: '/v1/traces', contentType: 'application/json', auth: 's3cret' });
    expect(received[0].body.resourceSpans[0].resource.attributes).toContainEqual({
      key: 'service.name',
      value: { stringValue: 'gateway-under-test' },
    });
    expect(span.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(span.spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(span.name).toBe('chat gpt-4o-mini');
    expect(BigInt(span.endTimeUnixNano)).toBeGreaterThanOrEqual(BigInt(span.startTimeUnixNano));
    expect(span.status.code).toBe(1);
    expect(attrs(span)).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.system': 'openai',
      'gen_ai.request.model': 'gpt-4o-mini',
      'gen_ai.response.model': 'gpt-4o-mini',
      'gen_ai.usage.input_tokens': '12',
      'gen_ai.usage.output_tokens': '5',
      'http.response.status_code': '200',
      'gateway.team_id': teamId,
      'gateway.api_key_prefix': apiKey.slice(0, 11),
      'gateway.cost_rub': -usage.body.data[0].amount_rub,
      'gateway.attempts': '1',
    });
  });

  it("a caller's W3C traceparent: the span joins its trace as a child", async () => {
    const { apiKey } = await new AdminClient(t.url).teamWithKey(100, 'propagated');
    fake.enqueue({ text: 'x', usage: { input: 1, output: 1 } });
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const res = await request(t.url)
      .post('/v1/chat/completions')
      .set('api-key', apiKey)
      .set('traceparent', `00-${traceId}-00f067aa0ba902b7-01`)
      .send({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    expect(res.status).toBe(200);
    const span = await spanOf(res.headers['x-request-id'] as string);
    expect(span).toMatchObject({ traceId, parentSpanId: '00f067aa0ba902b7' });
    expect(span.spanId).not.toBe('00f067aa0ba902b7');
  });

  it('a refused call: a span with an error status and error.type', async () => {
    const { apiKey } = await new AdminClient(t.url).teamWithKey(0, 'broke');
    const res = await request(t.url)
      .post('/v1/chat/completions')
      .set('api-key', apiKey)
      .send({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    expect(res.status).toBe(402);
    const span = await spanOf(res.headers['x-request-id'] as string);
    expect(span.status.code).toBe(2);
    expect(attrs(span)).toMatchObject({ 'http.response.status_code': '402', 'error.type': res.body.error.code });
  });
});
