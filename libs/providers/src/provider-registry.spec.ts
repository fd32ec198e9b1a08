import { ApiError } from '@app/common';
import { AppConfig } from '@app/config';
import { ModelEntry } from './catalog/model-catalog';
import { HttpChatProvider } from './chat-provider';
import { ProviderHttpClient } from './http/provider-http.client';
import { LexicalEmbedder } from './local/lexical-embedder';
import { LocalChatProvider, LocalEmbeddingProvider, LocalImageProvider } from './local/local.providers';
import { TokenCounter } from './tokenizer/token-counter';
import { OpenAiEmbeddingProvider, OpenAiImageProvider } from './openai/openai.provider';
import { GeminiImageProvider } from './gemini/gemini.provider';
import { ENV_PROVIDERS, PROVIDER_DEFINITIONS } from './provider-definitions';
import { ProviderRegistry } from './provider-registry';
import { TokenizerService } from './tokenizer/tokenizer.service';

const model = (provider: string, key = `${provider}-model`): ModelEntry =>
  ({ key, provider, upstream_model: key, kind: 'chat', dimensions: 64 }) as unknown as ModelEntry;

describe('ProviderRegistry (a lookup over the provider definitions)', () => {
  const http = new ProviderHttpClient();
  const tokenizers = new TokenizerService(new TokenCounter('o200k_base'), new TokenCounter('cl100k_base'));
  const registry = (env: Record<string, string> = {}) =>
    new ProviderRegistry(AppConfig.load(ENV_PROVIDERS, env), http, tokenizers, new LexicalEmbedder());
  // every definition's first credential alternative set (a key, plus e.g. a folder id)
  const allKeys = Object.fromEntries(
    ENV_PROVIDERS.flatMap((d) => (d.env.credentials?.[0] ?? ['API_KEY']).map((n) => [`${d.env.prefix}_${n}`, 'k'])),
  );

  afterAll(() => http.close());

  it('the env schema declares every definition with env vars, defaults from the definition', () => {
    const config = AppConfig.load(ENV_PROVIDERS);
    expect(config.providerNames.sort()).toEqual(ENV_PROVIDERS.map((d) => d.name).sort());
    for (const d of ENV_PROVIDERS) expect(config.provider(d.name).baseUrl).toBe(d.env.defaultBaseUrl);
    expect(
      AppConfig.load(ENV_PROVIDERS, { DEEPSEEK_BASE_URL: 'http://127.0.0.1:9/v1/' }).provider('deepseek').baseUrl,
    ).toBe('http://127.0.0.1:9/v1');
  });

  it('names the missing <PREFIX>_API_KEY; local needs none', () => {
    const r = registry();
    expect(r.missingCredential(model('openai'))).toBe('OPENAI_API_KEY');
    expect(r.missingCredential(model('deepseek'))).toBe('DEEPSEEK_API_KEY');
    expect(r.missingCredential(model('gemini'))).toBe('GEMINI_API_KEY');
    expect(r.missingCredential(model('local'))).toBeNull();
    // a definition's own credential variables
    expect(r.missingCredential(model('gigachat'))).toBe('GIGACHAT_AUTH_KEY');
    expect(r.unavailableReason(model('gigachat'))).toBe(
      'Provider "gigachat" is not configured: set GIGACHAT_AUTH_KEY on the gateway.',
    );
    expect(registry({ GIGACHAT_API_KEY: 'k' }).isAvailable(model('gigachat'))).toBe(false);
    expect(registry({ GIGACHAT_AUTH_KEY: 'k' }).unavailableReason(model('gigachat'))).toBeNull();
    expect(r.unavailableReason(model('local'))).toBeNull();
    expect(registry({ ANTHROPIC_API_KEY: 'k' }).isAvailable(model('anthropic'))).toBe(true);
    try {
      r.chat(model('anthropic', 'claude-x'));
      throw new Error('expected 503');
    } catch (e) {
      expect(e).toBeInstanceOf(ApiError);
      expect((e as ApiError).message).toContain('Set ANTHROPIC_API_KEY on the gateway');
    }
  });

  it('Yandex: a folder and an API key or an IAM token; the reason names what is missing', () => {
    expect(registry().missingCredential(model('yandex'))).toBe(
      'YANDEX_API_KEY and YANDEX_FOLDER_ID or YANDEX_IAM_TOKEN and YANDEX_FOLDER_ID',
    );
    expect(registry({ YANDEX_FOLDER_ID: 'b1g' }).missingCredential(model('yandex'))).toBe(
      'YANDEX_API_KEY or YANDEX_IAM_TOKEN',
    );
    expect(registry({ YANDEX_API_KEY: 'k' }).unavailableReason(model('yandex'))).toBe(
      'Provider "yandex" is not configured: set YANDEX_FOLDER_ID on the gateway.',
    );
    expect(registry({ YANDEX_IAM_TOKEN: 't', YANDEX_FOLDER_ID: 'b1g' }).isAvailable(model('yandex'))).toBe(true);
    expect(registry({ YANDEX_API_KEY: 'k', YANDEX_FOLDER_ID: 'b1g' }).chat(model('yandex'))).toBeInstanceOf(
      HttpChatProvider,
    );
  });

  it('exact token counts: local always, OpenAI only at api.openai.com, the others never', () => {
    expect(registry().countsTokensExactly(model('local'))).toBe(true);
    expect(registry().countsTokensExactly(model('openai'))).toBe(true);
    expect(registry({ OPENAI_BASE_URL: 'https://api.openai.com/v1/' }).countsTokensExactly(model('openai'))).toBe(true);
    expect(registry({ OPENAI_BASE_URL: 'http://localhost:8000/v1' }).countsTokensExactly(model('openai'))).toBe(false);
    expect(registry({ OPENAI_BASE_URL: 'https://openrouter.ai/api/v1' }).countsTokensExactly(model('openai'))).toBe(
      false,
    );
    for (const p of ['deepseek', 'anthropic', 'gemini']) expect(registry().countsTokensExactly(model(p))).toBe(false);
  });

  it('inline images: Anthropic and Gemini always, OpenAI-compatible ones when <PREFIX>_INLINE_IMAGES is on', () => {
    expect(registry().needsInlineImages(model('anthropic'))).toBe(true);
    expect(registry().needsInlineImages(model('gemini'))).toBe(true);
    expect(registry().needsInlineImages(model('openai'))).toBe(false);
    expect(registry({ OPENAI_INLINE_IMAGES: 'true' }).needsInlineImages(model('openai'))).toBe(true);
    expect(registry({ DEEPSEEK_INLINE_IMAGES: 'true' }).needsInlineImages(model('deepseek'))).toBe(true);
    expect(registry().needsInlineImages(model('local'))).toBe(false);
  });

  it('builds clients from the adapter family named by the definition, capabilities gate embeddings and images', () => {
    const r = registry(allKeys);
    expect(r.chat(model('local'))).toBeInstanceOf(LocalChatProvider);
    expect(r.chat(model('local'))).toBe(r.chat(model('local'))); // one chat client per provider
    for (const p of ['openai', 'deepseek', 'anthropic', 'gemini'])
      expect(r.chat(model(p))).toBeInstanceOf(HttpChatProvider);
    expect(r.embeddings(model('openai'))).toBeInstanceOf(OpenAiEmbeddingProvider);
    expect(r.embeddings(model('local'))).toBeInstanceOf(LocalEmbeddingProvider);
    expect(r.images(model('openai'))).toBeInstanceOf(OpenAiImageProvider);
    expect(r.images(model('gemini'))).toBeInstanceOf(GeminiImageProvider);
    expect(r.images(model('local'))).toBeInstanceOf(LocalImageProvider);
    expect(() => r.embeddings(model('deepseek'))).toThrow('Provider deepseek does not serve embeddings.');
    expect(() => r.embeddings(model('anthropic'))).toThrow('Provider anthropic does not serve embeddings.');
    expect(() => r.images(model('anthropic'))).toThrow('Provider anthropic does not generate images.');
  });

  it('every definition has a unique name and names an adapter family that serves its capabilities', () => {
    const names = PROVIDER_DEFINITIONS.map((d) => d.name);
    expect(new Set(names).size).toBe(names.length);
    const r = registry(allKeys); // the constructor refuses a definition without an adapter family
    for (const d of PROVIDER_DEFINITIONS) {
      if (d.capabilities.chat) expect(r.chat(model(d.name))).toBeDefined();
      if (d.capabilities.embeddings) expect(r.embeddings(model(d.name))).toBeDefined();
      if (d.capabilities.images) expect(r.images(model(d.name))).toBeDefined();
    }
  });
});
