/**
 * POST /v1/chat/completions honours the `file_urls` extension exactly as POST /api/v1/chat does:
 * PDFs (detected by content) join the context and are named in `sources`, images join the last
 * user message for models with image support, the same limits (413 beyond 10 PDFs / 20 images,
 * before anything is fetched), the same SSRF guard, and a clear 400 naming `file_urls[i]` when a
 * URL cannot be used — never a silent drop, and nothing sent upstream on a refusal.
 */
import request from 'supertest';
import { SAFE_FETCHER_OPTIONS, SafeFetcherOptions } from '@app/common';
import { FakeOpenAI, ImageServer, pngBytes } from '../fakes';
import { AdminClient } from '../support/admin-client';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import { FILLER, pdfWithPages } from '../knowledge/kb-fixtures';
import { providerEnv, UPSTREAM_KEYS } from '../chat/chat-helpers';

const DOCS_HOST = 'docs.example.com'; // resolves to 127.0.0.1 through the injected resolver
const PRIVATE_HOST = 'intranet.example.com'; // resolves to a private address: refused
const PDF_FACT = 'The warehouse in Kazan stores exactly 4512 pallets of copper wire.';

describe(`/v1/chat/completions file_urls (${backendKind()})`, () => {
  let t: TestApp;
  let web: ImageServer;
  let openai: FakeOpenAI;
  let apiKey: string;

  beforeAll(async () => {
    web = await ImageServer.start();
    openai = await FakeOpenAI.start({ apiKey: UPSTREAM_KEYS.openai });
    const fetcher: SafeFetcherOptions = {
      resolver: async (host) =>
        host === DOCS_HOST ? [{ address: '127.0.0.1', family: 4 }] : [{ address: '10.0.0.7', family: 4 }],
      allowAddress: (ip) => ip === '127.0.0.1',
    };
    t = await createTestApp({
      env: { ...providerEnv({ openai }), OPENAI_MAX_RETRIES: '0' },
      overrides: [{ provide: SAFE_FETCHER_OPTIONS, useValue: fetcher }],
    });
    ({ apiKey } = await new AdminClient(t.url).teamWithKey(100));
  });
  afterEach(() => {
    openai.reset();
    web.reset();
  });
  afterAll(async () => {
    await t?.close();
    await web?.close();
    await openai?.close();
  });

  const completions = (body: Record<string, unknown>) =>
    request(t.url)
      .post('/v1/chat/completions')
      .set('Authorization', `Bearer ${apiKey}`)
      .send({ model: 'local', ...body });
  const ask = (content: string) => [{ role: 'user', content }];

  it('a PDF (served without a .pdf name) joins the context and is named in sources', async () => {
    const pdf = await pdfWithPages([FILLER, [PDF_FACT]], 'Inventory');
    const url = web.serve('/files/inventory', pdf, 'application/octet-stream').replace('127.0.0.1', DOCS_HOST);
    const res = await completions({
      messages: ask('How many pallets of copper wire are in the Kazan warehouse?'),
      file_urls: [url],
    });
    expect(res.status).toBe(200);
    expect(res.body.choices[0].message.content).toContain(PDF_FACT);
    expect(res.body.sources).toEqual([expect.objectContaining({ kind: 'file_url', url })]);
    expect(res.body.context).toMatchObject({ mode: 'full', materials_full: [url] });
  });

  it('an image joins the last user message for a model with image support', async () => {
    const url = web.serve('/img/chart', pngBytes(), 'image/png').replace('127.0.0.1', DOCS_HOST);
    const res = await completions({
      model: 'gpt-4o-mini',
      messages: [...ask('first'), { role: 'assistant', content: 'ok' }, ...ask('Describe the chart')],
      file_urls: [url],
    });
    expect(res.status).toBe(200);
    const sent = openai.lastRequest?.body.messages as { role: string; content: unknown }[];
    const last = sent[sent.length - 1];
    expect(last.role).toBe('user');
    expect(last.content).toEqual([
      { type: 'text', text: 'Describe the chart' },
      { type: 'image_url', image_url: { url: expect.stringMatching(/^data:image\/png;base64,/) } },
    ]);
    expect(sent[0].content).toBe('first');
  });

  it('refusals name the URL and send nothing upstream: private address, unreachable, wrong type, no image support', async () => {
    const cases: [string, Record<string, unknown>, number, string, string][] = [
      [
        'private address',
        { file_urls: [`http://${PRIVATE_HOST}/doc`] },
        400,
        'file_urls[0]',
        'file_url_forbidden_address',
      ],
      [
        'wrong type',
        { file_urls: [web.serve('/files/page', '<html>no</html>', 'text/html').replace('127.0.0.1', DOCS_HOST)] },
        400,
        'file_urls[0]',
        'file_url_unsupported_type',
      ],
      ['not a URL', { file_urls: ['ftp://example.com/a.pdf'] }, 400, 'file_urls[0]', 'invalid_value'],
    ];
    for (const [what, extra, status, param, code] of cases) {
      const res = await completions({ model: 'gpt-4o-mini', messages: ask('x'), ...extra });
      expect({ what, status: res.status }).toEqual({ what, status });
      expect(res.body.error).toMatchObject({ param });
      if (code !== 'invalid_value') expect(res.body.error.code).toBe(code);
    }
    const missing = await completions({
      model: 'gpt-4o-mini',
      messages: ask('x'),
      file_urls: [`http://${DOCS_HOST}:${new URL(web.baseUrl).port}/nothing-here`],
    });
    expect(missing.status).toBe(400);
    expect(missing.body.error.param).toBe('file_urls[0]');
    // `local` takes no images
    const noImages = await completions({
      messages: ask('x'),
      file_urls: [`data:image/png;base64,${pngBytes().toString('base64')}`],
    });
    expect(noImages.status).toBe(400);
    expect(noImages.body.error.param).toBe('file_urls');
    expect(openai.requests).toHaveLength(0);
  });

  it('limits as on /api/v1/chat: 11 PDFs or 21 images → 413 before anything is fetched', async () => {
    const pdfs = Array.from({ length: 11 }, (_, i) =>
      web.serve(`/many/doc-${i}.pdf`, 'x', 'application/pdf').replace('127.0.0.1', DOCS_HOST),
    );
    const tooMany = await completions({ messages: ask('x'), file_urls: pdfs });
    expect(tooMany.status).toBe(413);
    expect(tooMany.body.error.param).toBe('file_urls');
    const images = Array.from({ length: 21 }, () => `data:image/png;base64,${pngBytes().toString('base64')}`);
    const tooManyImages = await completions({ model: 'gpt-4o-mini', messages: ask('x'), file_urls: images });
    expect(tooManyImages.status).toBe(413);
    expect(Object.keys(web.hitCounts()).filter((p) => p.startsWith('/many/'))).toEqual([]);
    expect(openai.requests).toHaveLength(0);
  });
});
