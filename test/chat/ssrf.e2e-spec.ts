/**
 * SSRF guard on image URLs the gateway must fetch itself (Anthropic / Gemini need bytes):
 * loopback, private, link-local / cloud-metadata, CGNAT addresses, a host name resolving to
 * 127.0.0.1 and a redirect to a private address are all refused with 400 before any byte is
 * fetched, the provider is never called and nothing is charged. Only 127.0.0.1 is ever connected to:
 * every other address in here is refused by the policy before a socket is opened.
 */
import OpenAI from 'openai';
import request from 'supertest';
import { SAFE_FETCHER_OPTIONS, SafeFetcherOptions } from '@app/common';
import { FakeAnthropic, FakeGemini, ImageServer, pngBytes } from '../fakes';
import { AdminClient } from '../support/admin-client';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import { PRICES, UPSTREAM_KEYS, Wallet, expectedCost, providerEnv } from './chat-helpers';

const TRUSTED_HOST = 'images.trusted-test.example'; // resolves to 127.0.0.1, which app C allows
const REBIND_HOST = 'innocent-looking.test.example'; // resolves to 127.0.0.1, no allowance
const METADATA_HOST = 'metadata.test.example'; // resolves to 169.254.169.254

describe(`SSRF guard on fetched image URLs (${backendKind()})`, () => {
  let anthropic: FakeAnthropic;
  let gemini: FakeGemini;
  let images: ImageServer;
  /** default SafeFetcher options (the product configuration) */
  let a: TestApp;
  /** injected resolver, no address allowance */
  let b: TestApp;
  /** injected resolver + 127.0.0.1 allowed: the "trusted" test host is reachable */
  let c: TestApp;
  let admin: AdminClient;
  let apiKey: string;
  let wallet: Wallet;
  const lookups: string[] = [];

  const resolver: SafeFetcherOptions['resolver'] = async (host) => {
    lookups.push(host);
    if (host === TRUSTED_HOST || host === REBIND_HOST) return [{ address: '127.0.0.1', family: 4 }];
    if (host === METADATA_HOST) return [{ address: '169.254.169.254', family: 4 }];
    throw new Error(`ENOTFOUND ${host}`);
  };

  const port = (): string => new URL(images.baseUrl).port;
  const chatWithImage = (app: TestApp, url: string, model = 'claude-sonnet-4') =>
    request(app.url)
      .post('/api/v1/chat')
      .set('api-key', apiKey)
      .send({ prompt: 'Describe the image', model, user_id: 'u', file_urls: [url] });

  /** 400 (or 413) naming file_urls[0], and nothing reached the provider. */
  async function expectRefused(res: request.Response, code: string, status = 400): Promise<void> {
    expect(res.status).toBe(status);
    expect(res.body.error).toMatchObject({ param: 'file_urls[0]', code });
    expect(res.body.error.message).not.toMatch(/127\.0\.0\.1|10\.0\.0\.1|169\.254/); // resolved addresses are not echoed
    expect(anthropic.requests).toHaveLength(0);
    expect(gemini.requests).toHaveLength(0);
  }

  beforeAll(async () => {
    [anthropic, gemini, images] = await Promise.all([
      FakeAnthropic.start({ apiKey: UPSTREAM_KEYS.anthropic }),
      FakeGemini.start({ apiKey: UPSTREAM_KEYS.gemini }),
      ImageServer.start(),
    ]);
    const env = providerEnv({ anthropic, gemini });
    a = await createTestApp({ env });
    b = await createTestApp({
      env,
      shareBackendWith: a,
      overrides: [{ provide: SAFE_FETCHER_OPTIONS, useValue: { resolver } satisfies SafeFetcherOptions }],
    });
    c = await createTestApp({
      env,
      shareBackendWith: a,
      overrides: [
        {
          provide: SAFE_FETCHER_OPTIONS,
          useValue: { resolver, allowAddress: (ip: string) => ip === '127.0.0.1' } satisfies SafeFetcherOptions,
        },
      ],
    });
    admin = new AdminClient(a.url);
  });

  beforeEach(async () => {
    apiKey = (await admin.teamWithKey(200)).apiKey;
    wallet = await new Wallet(a.url, apiKey).snapshot();
  });

  afterEach(() => {
    anthropic.reset();
    gemini.reset();
    images.reset();
    lookups.length = 0;
  });

  afterAll(async () => {
    await c?.close();
    await b?.close();
    await a?.close();
    await Promise.all([anthropic?.close(), gemini?.close(), images?.close()]);
  });

  describe('default options (as shipped)', () => {
    it('loopback image server (127.0.0.1 and its spellings) → 400, nothing fetched', async () => {
      images.serve('/secret.png', pngBytes());
      for (const url of [
        images.url('/secret.png'),
        `http://127.1:${port()}/secret.png`,
        `http://2130706433:${port()}/secret.png`,
        `http://[::1]:${port()}/secret.png`,
        `http://[::ffff:127.0.0.1]:${port()}/secret.png`,
        `http://localhost:${port()}/secret.png`,
        `http://0.0.0.0:${port()}/secret.png`,
      ]) {
        await expectRefused(await chatWithImage(a, url), 'file_url_forbidden_address');
      }
      expect(images.hits()).toBe(0);
      await wallet.expectUntouched();
    });

    it('private 10.x, link-local cloud metadata 169.254.169.254, CGNAT and other private ranges → 400', async () => {
      for (const url of [
        'http://10.0.0.1/x.png',
        'http://169.254.169.254/latest/meta-data/',
        'http://[fd00:ec2::254]/latest/meta-data/',
        'http://100.64.0.1/x.png',
        'http://192.168.1.1/router.png',
        'http://172.16.0.1/x.png',
        'https://10.255.255.254/x.png',
      ]) {
        await expectRefused(await chatWithImage(a, url), 'file_url_forbidden_address');
      }
      await wallet.expectUntouched();
    });

    it('the same through /v1/chat/completions (SDK) for Gemini and Claude → BadRequestError', async () => {
      const client = new OpenAI({ baseURL: `${a.url}/v1`, apiKey, maxRetries: 0 });
      images.serve('/s.png', pngBytes());
      for (const [model, url] of [
        ['gemini-2.5-flash', images.url('/s.png')],
        ['claude-sonnet-4', 'http://169.254.169.254/latest/meta-data/iam/security-credentials/'],
      ] as const) {
        const err = await client.chat.completions
          .create({
            model,
            messages: [
              {
                role: 'user',
                content: [
                  { type: 'text', text: 'hi' },
                  { type: 'image_url', image_url: { url } },
                ],
              },
            ],
          })
          .catch((e: unknown) => e);
        expect(err).toBeInstanceOf(OpenAI.BadRequestError);
        expect(err).toMatchObject({ status: 400, code: 'file_url_forbidden_address' });
      }
      expect(images.hits()).toBe(0);
      expect(anthropic.requests).toHaveLength(0);
      expect(gemini.requests).toHaveLength(0);
      await wallet.expectUntouched();
    });

    it('non-http schemes are refused without any fetch', async () => {
      for (const url of ['file:///etc/passwd', 'ftp://10.0.0.1/x.png', 'gopher://127.0.0.1:6379/_INFO']) {
        const res = await chatWithImage(a, url);
        expect(res.status).toBe(400);
        expect(res.body.error.param).toBe('file_urls[0]');
      }
      expect(anthropic.requests).toHaveLength(0);
      await wallet.expectUntouched();
    });
  });

  describe('host names (injected resolver)', () => {
    it('a host name resolving to 127.0.0.1 → 400 after resolution, nothing fetched', async () => {
      images.serve('/x.png', pngBytes());
      await expectRefused(
        await chatWithImage(b, `http://${REBIND_HOST}:${port()}/x.png`),
        'file_url_forbidden_address',
      );
      await expectRefused(
        await chatWithImage(b, `http://${REBIND_HOST}:${port()}/x.png`, 'gemini-2.5-flash'),
        'file_url_forbidden_address',
      );
      expect(lookups).toEqual([REBIND_HOST, REBIND_HOST]);
      expect(images.hits()).toBe(0);
      await wallet.expectUntouched();
    });

    it('a host name resolving to the metadata address is refused even where 127.0.0.1 is allowed', async () => {
      await expectRefused(
        await chatWithImage(c, `http://${METADATA_HOST}/latest/meta-data/`),
        'file_url_forbidden_address',
      );
      expect(lookups).toEqual([METADATA_HOST]);
      await wallet.expectUntouched();
    });
  });

  describe('redirects (trusted test host allowed)', () => {
    it('positive control: the trusted host is fetched, inlined and billed', async () => {
      const png = pngBytes(4, 4);
      images.serve('/ok.png', png);
      anthropic.enqueue({ text: 'A red square.', usage: { input: 900, output: 4 } });
      const res = await chatWithImage(c, `http://${TRUSTED_HOST}:${port()}/ok.png`);
      expect(res.status).toBe(200);
      expect(images.hits('/ok.png')).toBe(1);
      expect(JSON.stringify(anthropic.lastRequest?.body.messages)).toContain(png.toString('base64'));
      await wallet.expectCharged(
        expectedCost(PRICES['claude-sonnet-4'], { prompt: 900, completion: 4, images: 1 }).total_cost_rub,
      );
    });

    it('a redirect to a private address, to the metadata address or to a host resolving there → 400; the target is never contacted', async () => {
      images.redirect('/to-private', 'http://10.0.0.1/internal.png');
      images.redirect('/to-metadata', 'http://169.254.169.254/latest/meta-data/', 301);
      images.redirect('/to-metadata-host', `http://${METADATA_HOST}/latest/meta-data/`, 307);
      images.redirect('/to-loopback-name', `http://${REBIND_HOST}:${port()}/secret.png`, 308);
      images.serve('/secret.png', pngBytes());
      for (const path of ['/to-private', '/to-metadata', '/to-metadata-host']) {
        await expectRefused(
          await chatWithImage(c, `http://${TRUSTED_HOST}:${port()}${path}`),
          'file_url_forbidden_address',
        );
      }
      expect(images.hitCounts()).toEqual({ '/to-private': 1, '/to-metadata': 1, '/to-metadata-host': 1 });
      // in app B nothing is allowed, so even the first hop to the "trusted" name is refused
      await expectRefused(
        await chatWithImage(b, `http://${TRUSTED_HOST}:${port()}/to-loopback-name`),
        'file_url_forbidden_address',
      );
      expect(images.hits('/to-loopback-name')).toBe(0);
      expect(images.hits('/secret.png')).toBe(0);
      await wallet.expectUntouched();
    });

    it('at most 3 redirects: 3 are followed, a 4th is refused', async () => {
      images.serve('/final.png', pngBytes());
      images.redirect('/r1', '/r2');
      images.redirect('/r2', '/r3');
      images.redirect('/r3', '/final.png');
      anthropic.enqueue({ text: 'ok', usage: { input: 100, output: 1 } });
      const three = await chatWithImage(c, `http://${TRUSTED_HOST}:${port()}/r1`);
      expect(three.status).toBe(200);
      expect(images.hitCounts()).toEqual({ '/r1': 1, '/r2': 1, '/r3': 1, '/final.png': 1 });
      anthropic.reset();

      images.redirect('/r0', '/r1');
      const four = await chatWithImage(c, `http://${TRUSTED_HOST}:${port()}/r0`);
      await expectRefused(four, 'file_url_too_many_redirects');
      expect(images.hitCounts()).toEqual({ '/r0': 1, '/r1': 2, '/r2': 2, '/r3': 2, '/final.png': 1 });
      await wallet.expectCharged(
        expectedCost(PRICES['claude-sonnet-4'], { prompt: 100, completion: 1, images: 1 }).total_cost_rub,
      );
    });

    it('size is capped while streaming (> 10 MB without content-length → 413, connection dropped early); wrong type → 400', async () => {
      images.oversize('/huge.png', 64 * 1024 * 1024);
      await expectRefused(
        await chatWithImage(c, `http://${TRUSTED_HOST}:${port()}/huge.png`),
        'request_too_large',
        413,
      );
      await images.waitForDisconnect(1, 2_000); // the gateway stopped reading long before 64 MB

      images.serve('/page.html', '<html>not an image</html>', 'text/html');
      await expectRefused(
        await chatWithImage(c, `http://${TRUSTED_HOST}:${port()}/page.html`),
        'file_url_unsupported_type',
      );
      await wallet.expectUntouched();
    });
  });
});
