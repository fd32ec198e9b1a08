/**
 * SSRF by proxy. Image URLs that OpenAI-type providers would fetch themselves
 * (a self-hosted vLLM / Ollama behind OPENAI_BASE_URL would fetch them from inside the network) pass
 * the same address policy as the URLs the gateway fetches: the hostname is resolved and EVERY
 * address must be public. Otherwise 400 naming the part, and the upstream is never called.
 */
import request from 'supertest';
import { SAFE_FETCHER_OPTIONS, SafeFetcherOptions } from '@app/common';
import { FakeOpenAI, ImageServer, pngBytes } from '../fakes';
import { AdminClient } from '../support/admin-client';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import { UPSTREAM_KEYS, providerEnv } from './chat-helpers';

const HOSTS: Record<string, string[]> = {
  'cdn.public.example': ['93.184.216.34'],
  'intranet.example': ['10.0.0.1'],
  'mixed.example': ['93.184.216.34', '192.168.1.20'],
  'metadata.example': ['169.254.169.254'],
  'v6-local.example': ['fd00::1'],
};

describe(`forwarded image URLs are vetted (${backendKind()})`, () => {
  let openai: FakeOpenAI;
  let t: TestApp;
  let apiKey: string;

  beforeAll(async () => {
    openai = await FakeOpenAI.start({ apiKey: UPSTREAM_KEYS.openai });
    const resolver: SafeFetcherOptions['resolver'] = async (host) => {
      const addrs = HOSTS[host];
      if (!addrs) throw new Error(`ENOTFOUND ${host}`);
      return addrs.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    };
    t = await createTestApp({
      env: providerEnv({ openai }),
      overrides: [{ provide: SAFE_FETCHER_OPTIONS, useValue: { resolver } satisfies SafeFetcherOptions }],
    });
    ({ apiKey } = await new AdminClient(t.url).teamWithKey(100));
  });
  afterEach(() => openai.reset());
  afterAll(async () => {
    await t?.close();
    await openai?.close();
  });

  const completions = (url: string) =>
    request(t.url)
      .post('/v1/chat/completions')
      .set('authorization', `Bearer ${apiKey}`)
      .send({
        model: 'gpt-4o-mini',
        max_tokens: 8,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'what is this?' },
              { type: 'image_url', image_url: { url } },
            ],
          },
        ],
      });
  const rest = (url: string) =>
    request(t.url)
      .post('/api/v1/chat')
      .set('api-key', apiKey)
      .send({ model: 'gpt-4o-mini', max_tokens: 8, user_id: 'u', prompt: 'what is this?', file_urls: [url] });

  it.each([
    ['http://169.254.169.254/latest/meta-data/', 'forbidden_address'],
    ['http://10.0.0.1/admin', 'forbidden_address'],
    ['http://127.0.0.1:8080/x.png', 'forbidden_address'],
    ['http://[::1]/x.png', 'forbidden_address'],
    ['http://[::ffff:127.0.0.1]/x.png', 'forbidden_address'],
    ['http://2130706433/x.png', 'forbidden_address'],
    ['http://0x7f.1/x.png', 'forbidden_address'],
    ['http://localhost/x.png', 'forbidden_address'],
    ['http://intranet.example/x.png', 'forbidden_address'],
    ['http://mixed.example/x.png', 'forbidden_address'],
    ['http://metadata.example/x.png', 'forbidden_address'],
    ['http://v6-local.example/x.png', 'forbidden_address'],
    ['http://user:pass@cdn.public.example/x.png', 'invalid_url'],
    ['ftp://cdn.public.example/x.png', 'invalid_url'],
    ['file:///etc/passwd', 'invalid_url'],
  ])('%s → 400 (%s) on both endpoints; the upstream is never called', async (url, code) => {
    const a = await completions(url);
    expect(a.status).toBe(400);
    expect(a.body.error).toMatchObject({
      type: 'invalid_request_error',
      param: expect.stringMatching(/image_url|messages/),
      code: code === 'invalid_url' ? expect.any(String) : expect.stringContaining('forbidden'),
    });
    const b = await rest(url);
    expect(b.status).toBe(400);
    expect(b.body.error.param).toBe('file_urls[0]');
    expect(JSON.stringify([a.body, b.body])).not.toMatch(/10\.0\.0\.1"|192\.168|169\.254\.169\.254"/);
    expect(openai.requests).toHaveLength(0);
  });

  it('a public URL is forwarded as given (nothing fetched by the gateway)', async () => {
    openai.enqueue({ text: 'A cat.', usage: { input: 300, output: 3 } });
    const res = await completions('https://cdn.public.example/cat.png');
    expect(res.status).toBe(200);
    const msg = (
      openai.lastRequest?.body.messages as Array<{ content: Array<{ type: string; image_url?: { url: string } }> }>
    )[0];
    expect(msg.content[1].image_url?.url).toBe('https://cdn.public.example/cat.png');
  });

  it('OPENAI_INLINE_IMAGES=true (self-hosted upstream): the gateway fetches the image, guarded, and sends bytes', async () => {
    const images = await ImageServer.start();
    const inline = await createTestApp({
      env: { ...providerEnv({ openai }), OPENAI_INLINE_IMAGES: 'true' },
      shareBackendWith: t,
      overrides: [
        {
          provide: SAFE_FETCHER_OPTIONS,
          useValue: {
            resolver: async () => [{ address: '127.0.0.1', family: 4 }],
            allowAddress: (ip: string) => ip === '127.0.0.1',
          } satisfies SafeFetcherOptions,
        },
      ],
    });
    try {
      const url = images.serve('/cat.png', pngBytes(2, 2)).replace('127.0.0.1', 'images.internal-allowed.example');
      openai.enqueue({ text: 'A cat.', usage: { input: 300, output: 3 } });
      const res = await request(inline.url)
        .post('/v1/chat/completions')
        .set('authorization', `Bearer ${apiKey}`)
        .send({
          model: 'gpt-4o-mini',
          max_tokens: 8,
          messages: [
            {
              role: 'user',
              content: [
                { type: 'text', text: 'what?' },
                { type: 'image_url', image_url: { url } },
              ],
            },
          ],
        });
      expect(res.status).toBe(200);
      expect(images.hits('/cat.png')).toBe(1);
      const msg = (openai.lastRequest?.body.messages as Array<{ content: Array<{ image_url?: { url: string } }> }>)[0];
      expect(msg.content[1].image_url?.url).toBe(`data:image/png;base64,${pngBytes(2, 2).toString('base64')}`);
    } finally {
      await inline.close();
      await images.close();
    }
  });
});
