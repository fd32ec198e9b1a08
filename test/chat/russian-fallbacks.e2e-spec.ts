/**
 * The two Russian providers back each other up: a YandexGPT model falls back to GigaChat and a
 * GigaChat model to YandexGPT (catalog fallbacks through MODELS_FILE), after the first provider's
 * retryable failure, plain and streamed, each answer charged at the serving model's RUB price.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { FakeGigaChat, FakeYandex, faults } from '../fakes';
import { AdminClient } from '../support/admin-client';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import { Pricing, Wallet, expectedCost } from './chat-helpers';

const FOLDER = 'b1gtestfolder';
const YANDEX_KEY = 'AQVN-yandex-fake-key';
/** models.json, written out: a catalog change must be a visible test change */
const PRICES: Record<'gigachat-2' | 'yandexgpt-lite', Pricing> = {
  'gigachat-2': { input: 65, output: 65, cacheRead: 0, cacheWrite: null, image: null },
  'yandexgpt-lite': { input: 200, output: 200, cacheRead: null, cacheWrite: null, image: null },
};

describe(`fallbacks between YandexGPT and GigaChat (${backendKind()})`, () => {
  let yandex: FakeYandex;
  let giga: FakeGigaChat;
  let t: TestApp;
  let client: OpenAI;
  let wallet: Wallet;

  beforeAll(async () => {
    [yandex, giga] = await Promise.all([
      FakeYandex.start({ apiKey: YANDEX_KEY, folderId: FOLDER }),
      FakeGigaChat.start({ authKey: 'c2VjcmV0LWlkOnNlY3JldC1rZXk=' }),
    ]);
    const modelsFile = join(mkdtempSync(join(tmpdir(), 'ru-fallbacks-')), 'models.yaml');
    writeFileSync(
      modelsFile,
      [
        'models:',
        '  - key: yandexgpt-lite',
        '    fallbacks: [gigachat-2]',
        '  - key: gigachat-2',
        '    fallbacks: [yandexgpt-lite]',
      ].join('\n'),
    );
    t = await createTestApp({
      env: {
        ...giga.env(),
        GIGACHAT_MAX_RETRIES: '0',
        YANDEX_BASE_URL: yandex.baseUrl,
        YANDEX_FOLDER_ID: FOLDER,
        YANDEX_API_KEY: YANDEX_KEY,
        YANDEX_MAX_RETRIES: '0',
        MODELS_FILE: modelsFile,
      },
    });
  });

  beforeEach(async () => {
    const { apiKey } = await new AdminClient(t.url).teamWithKey(100);
    client = new OpenAI({ baseURL: `${t.url}/v1`, apiKey, maxRetries: 0 });
    wallet = await new Wallet(t.url, apiKey).snapshot();
  });

  afterEach(() => {
    yandex.reset();
    giga.reset();
  });

  afterAll(async () => {
    await t?.close();
    await yandex?.close();
    await giga?.close();
  });

  it('YandexGPT fails with a 500 → GigaChat answers, charged at its price', async () => {
    yandex.enqueue({ fault: faults.http(500) });
    giga.enqueue({ text: 'Отвечает GigaChat', usage: { input: 11, output: 3 } });
    const { data, response } = await client.chat.completions
      .create({ model: 'yandexgpt-lite', messages: [{ role: 'user', content: 'Кто ответит?' }] })
      .withResponse();
    expect(response.headers.get('x-gateway-model')).toBe('gigachat-2');
    expect(data.model).toBe('gigachat-2');
    expect(data.choices[0].message.content).toBe('Отвечает GigaChat');
    expect(yandex.requestsTo('/foundationModels/v1/completion')).toHaveLength(1);
    const cost = expectedCost(PRICES['gigachat-2'], { prompt: 11, completion: 3 });
    await wallet.expectCharged(cost.total_cost_rub, { model: 'gigachat-2', promptTokens: 11, completionTokens: 3 });
  });

  it('GigaChat fails with a 503 → YandexGPT answers a stream, charged at its price', async () => {
    giga.enqueue({ fault: faults.http(503) });
    yandex.enqueue({ text: 'Отвечает YandexGPT', usage: { input: 9, output: 2 } });
    const stream = await client.chat.completions.create({
      model: 'gigachat-2',
      messages: [{ role: 'user', content: 'Кто ответит?' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let model = '';
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      model = chunk.model;
      text += chunk.choices[0]?.delta?.content ?? '';
      usage = chunk.usage ?? usage;
    }
    expect(model).toBe('yandexgpt-lite');
    expect(text).toBe('Отвечает YandexGPT');
    expect(usage).toMatchObject({ prompt_tokens: 9, completion_tokens: 2 });
    const cost = expectedCost(PRICES['yandexgpt-lite'], { prompt: 9, completion: 2 });
    await wallet.expectCharged(cost.total_cost_rub, { model: 'yandexgpt-lite', promptTokens: 9, completionTokens: 2 });
  });
});
