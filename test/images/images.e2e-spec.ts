/**
 * Image generation end to end: the official `openai` SDK's `images.generate` unchanged against the
 * offline local-image generator and a fake OpenAI images upstream (gpt-image-1 token-priced,
 * dall-e-3 priced per image), the REST endpoint, signed URLs (valid PNG of the requested size;
 * tampered or expired → 403), exact cost and balance movement, 402 before any upstream call, and
 * nothing charged when the upstream fails.
 */
import OpenAI from 'openai';
import { PNG } from 'pngjs';
import request from 'supertest';
import { faults, fakeTokenCount, FakeOpenAI, GPT_IMAGE_OUTPUT_TOKENS } from '../fakes';
import { AdminClient } from '../support/admin-client';
import { ManualClock } from '../support/manual-clock';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import { FAKE_OPENAI_KEY, lastLedgerEntry, openAiEnv, toMicro } from '../rerank/rerank-helpers';

/** Catalog prices written out on purpose (µRUB). */
const LOCAL_PER_IMAGE = { low: 10_000, medium: 20_000, high: 40_000 };
const GPT_IMAGE = { inputPer1M: 500, outputPer1M: 4000 };
const DALLE3_1792_STANDARD = 8_000_000;

function pngSize(b64: string): [number, number] {
  const png = PNG.sync.read(Buffer.from(b64, 'base64'));
  return [png.width, png.height];
}

describe(`image generation on ${backendKind()}`, () => {
  let fake: FakeOpenAI;
  let t: TestApp;
  let admin: AdminClient;
  let apiKey: string;
  let client: OpenAI;
  const clock = new ManualClock();

  beforeAll(async () => {
    fake = await FakeOpenAI.start({ apiKey: FAKE_OPENAI_KEY });
    t = await createTestApp({ env: { ...openAiEnv(fake), OPENAI_MAX_RETRIES: '0' }, clock }); // one attempt per call: the fault cases pin single-failure behaviour
    admin = new AdminClient(t.url);
    ({ apiKey } = await admin.teamWithKey(500, 'images-team'));
    client = new OpenAI({ apiKey, baseURL: `${t.url}/v1`, maxRetries: 0 });
  });
  afterEach(() => fake.reset());
  afterAll(async () => {
    await t?.close();
    await fake?.close();
  });

  it('local-image through the SDK: n PNGs of the requested size, charged n × the catalog price', async () => {
    const before = await admin.balance(apiKey);
    const { data: res, response } = await client.images
      .generate({ model: 'local-image', prompt: 'a lighthouse at dawn', n: 3, size: '256x256', quality: 'low' })
      .withResponse();
    expect(res.data).toHaveLength(3);
    for (const img of res.data ?? []) expect(pngSize(img.b64_json!)).toEqual([256, 256]);
    expect(new Set(res.data!.map((d) => d.b64_json)).size).toBe(3);
    // 256x256 is outside OpenAI's response enum for size: the answer omits it; the size used shows
    // in the pixels above and the price below (n × the low-quality 256x256 price)
    expect(res).toMatchObject({ quality: 'low', output_format: 'png' });
    expect(res).not.toHaveProperty('size');
    expect(res.usage).toBeUndefined();
    expect(response.headers.get('x-gateway-cost-rub')).toBe('0.03');
    expect((res as unknown as { cost: unknown }).cost).toEqual({ total_cost_rub: 0.03, currency: 'RUB' });
    expect(toMicro(before) - toMicro(await admin.balance(apiKey))).toBe(3 * LOCAL_PER_IMAGE.low);
    expect(await lastLedgerEntry(t.url, apiKey)).toMatchObject({
      kind: 'charge',
      endpoint: '/v1/images/generations',
      model: 'local-image',
      amount_rub: -0.03,
    });
    expect(fake.requests).toHaveLength(0);
  });

  it('response_format url: a signed link serving the PNG; tampered → 403, expired → 403', async () => {
    const res = await client.images.generate({
      model: 'local-image',
      prompt: 'a red fox',
      size: '1024x1536',
      response_format: 'url',
    });
    const url = res.data![0].url!;
    expect(url).toMatch(new RegExp(`^${t.url}/v1/images/files/img_[0-9a-f]{32}\\?expires=\\d+&sig=[\\w-]+$`));
    expect(res.data![0].b64_json).toBeUndefined();
    const img = await fetch(url);
    expect(img.status).toBe(200);
    expect(img.headers.get('content-type')).toBe('image/png');
    expect(pngSize(Buffer.from(await img.arrayBuffer()).toString('base64'))).toEqual([1024, 1536]);

    const tampered = await fetch(url.replace(/sig=./, (m) => (m.endsWith('A') ? 'sig=B' : 'sig=A')));
    expect(tampered.status).toBe(403);
    expect(((await tampered.json()) as { error: unknown }).error).toMatchObject({
      type: 'permission_error',
      code: 'invalid_signature',
    });
    const longer = await fetch(url.replace(/expires=(\d+)/, (_m, e: string) => `expires=${Number(e) + 3_600_000}`));
    expect(longer.status).toBe(403);
    const unsigned = await fetch(url.split('?')[0]);
    expect(unsigned.status).toBe(403);

    clock.advance(61 * 60_000);
    const expired = await fetch(url);
    expect(expired.status).toBe(403);
    expect(((await expired.json()) as { error: { code: string } }).error.code).toBe('link_expired');
  });

  it('REST endpoint: images, usage, cost breakdown and the model options', async () => {
    const res = await request(t.url)
      .post('/api/v1/images/generations')
      .set('api-key', apiKey)
      .send({ model: 'local-image', prompt: 'a blue whale', size: '512x512', quality: 'high', n: 2 });
    expect(res.status).toBe(200);
    expect(res.headers['x-gateway-cost-rub']).toBe('0.08');
    expect(res.body.images).toHaveLength(2);
    expect(pngSize(res.body.images[0].b64_json)).toEqual([512, 512]);
    expect(res.body.usage).toEqual({ images: 2, input_tokens: 0, output_tokens: 0 });
    expect(res.body.cost).toEqual({ image_cost_rub: 0.08, input_cost_rub: 0, total_cost_rub: 0.08, currency: 'RUB' });
    expect(res.body.model).toEqual({
      model: 'local-image',
      sizes: ['auto', '256x256', '512x512', '1024x1024', '1024x1536', '1536x1024'],
      qualities: ['auto', 'low', 'medium', 'high'],
    });
  });

  it('gpt-image-1: forwarded without response_format, charged exactly the reported tokens × prices', async () => {
    const before = await admin.balance(apiKey);
    const prompt = 'a watercolour map of an imaginary island';
    const res = await client.images.generate({
      model: 'gpt-image-1',
      prompt,
      n: 2,
      size: '1536x1024',
      quality: 'low',
      background: 'opaque',
    });
    expect(fake.lastRequest?.path).toBe('/v1/images/generations');
    expect(fake.lastRequest?.body).toEqual({
      model: 'gpt-image-1',
      prompt,
      n: 2,
      size: '1536x1024',
      quality: 'low',
      output_format: 'png',
      background: 'opaque',
    });
    const input = fakeTokenCount(prompt);
    const output = GPT_IMAGE_OUTPUT_TOKENS['1536x1024'].low * 2;
    expect(res).toMatchObject({ size: '1536x1024', quality: 'low' }); // within OpenAI's enums: echoed
    expect(res.usage).toEqual({
      input_tokens: input,
      input_tokens_details: { text_tokens: input, image_tokens: 0 },
      output_tokens: output,
      total_tokens: input + output,
    });
    const expected = input * GPT_IMAGE.inputPer1M + output * GPT_IMAGE.outputPer1M; // µRUB: tokens × RUB per 1M
    expect(toMicro(before) - toMicro(await admin.balance(apiKey))).toBe(expected);
    expect(await lastLedgerEntry(t.url, apiKey)).toMatchObject({
      model: 'gpt-image-1',
      prompt_tokens: input,
      completion_tokens: output,
      amount_rub: -expected / 1e6,
    });
    expect(res.data!.map((d) => pngSize(d.b64_json!))).toEqual([
      [1536, 1024],
      [1536, 1024],
    ]);
  });

  it('dall-e-3: priced per image by size × quality, revised prompt passed through', async () => {
    const before = await admin.balance(apiKey);
    const res = await client.images.generate({
      model: 'dall-e-3',
      prompt: 'a cat astronaut',
      size: '1792x1024',
      style: 'natural',
    });
    expect(fake.lastRequest?.body).toEqual({
      model: 'dall-e-3',
      prompt: 'a cat astronaut',
      n: 1,
      size: '1792x1024',
      quality: 'standard',
      style: 'natural',
      response_format: 'b64_json',
    });
    expect(res.data![0].revised_prompt).toBe('A detailed rendition of: a cat astronaut');
    // 1792x1024 is outside OpenAI's response enum for size: omitted, like dall-e-3's quality
    expect(res).not.toHaveProperty('size');
    expect(res).not.toHaveProperty('quality');
    expect(toMicro(before) - toMicro(await admin.balance(apiKey))).toBe(DALLE3_1792_STANDARD);
  });

  it('validation per model: 400 naming the parameter, before any upstream call', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ model: 'dall-e-3', prompt: 'x', n: 2 }, 'n'],
      [{ model: 'dall-e-3', prompt: 'x', size: '256x256' }, 'size'],
      [{ model: 'dall-e-3', prompt: 'x', quality: 'low' }, 'quality'],
      [{ model: 'gpt-image-1', prompt: 'x', style: 'vivid' }, 'style'],
      [{ model: 'dall-e-3', prompt: 'x'.repeat(4001) }, 'prompt'],
      [{ model: 'local-image', prompt: 'x', output_format: 'jpeg' }, 'output_format'],
      [{ model: 'local-image', prompt: '   ' }, 'prompt'],
      [{ model: 'local-image', prompt: 'x', n: 0 }, 'n'],
      [{ model: 'gpt-4o', prompt: 'x' }, 'model'],
    ];
    for (const [body, param] of cases) {
      const res = await request(t.url)
        .post('/v1/images/generations')
        .set('authorization', `Bearer ${apiKey}`)
        .send(body);
      expect({ body, status: res.status, param: res.body.error?.param }).toEqual({ body, status: 400, param });
    }
    expect(fake.requests).toHaveLength(0);
  });

  it('402 when the balance cannot cover n images at the dearest price; the upstream is never called', async () => {
    const poor = await admin.teamWithKey(20, 'poor-images');
    const res = await request(t.url)
      .post('/v1/images/generations')
      .set('authorization', `Bearer ${poor.apiKey}`)
      .send({ model: 'gpt-image-1', prompt: 'x', n: 2, size: '1024x1536', quality: 'high' });
    expect(res.status).toBe(402);
    expect(res.body.error.type).toBe('insufficient_quota');
    expect(fake.requests).toHaveLength(0);
    expect(await admin.balance(poor.apiKey)).toBe(20);
  });

  it('upstream failure → 502 and nothing charged, the hold released', async () => {
    const before = await admin.balance(apiKey);
    fake.enqueue({ route: 'images', fault: faults.http(500, { message: 'boom at 10.1.2.3' }) });
    const res = await request(t.url)
      .post('/v1/images/generations')
      .set('authorization', `Bearer ${apiKey}`)
      .send({ model: 'gpt-image-1', prompt: 'x' });
    expect(res.status).toBe(502);
    expect(await admin.balance(apiKey)).toBe(before);
    const bal = await request(t.url).get('/api/v1/balance').set('api-key', apiKey);
    expect(bal.body.reserved_rub).toBe(0);
  });

  it('image models are listed with their options', async () => {
    const res = await request(t.url).get('/v1/models').set('authorization', `Bearer ${apiKey}`);
    const ids = (res.body.data as Array<{ id: string }>).map((m) => m.id);
    expect(ids).toEqual(expect.arrayContaining(['local-image', 'gpt-image-1', 'dall-e-3', 'gemini-2.5-flash-image']));
  });
});
