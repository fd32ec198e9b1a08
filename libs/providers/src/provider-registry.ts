import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { ApiError } from '@app/common';
import { AppConfig } from '@app/config';
import { getChatAdapter } from './adapters';
import { ModelEntry } from './catalog/model-catalog';
import { ChatProvider, EmbeddingProvider, HttpChatProvider } from './chat-provider';
import { ProviderHttpClient } from './http/provider-http.client';
import { LexicalEmbedder } from './local/lexical-embedder';
import { LocalChatProvider, LocalEmbeddingProvider } from './local/local.providers';
import { TokenCounter } from './local/tokenizer';
import { buildEmbeddingRequest, mapEmbeddingResponse, mapOpenAiError } from './openai';
import { ProviderConnection } from './types';
import { GeminiImageProvider, ImageProvider, LocalImageProvider, OpenAiImageProvider } from './images/image-providers';

type EnvProvider = 'openai' | 'deepseek' | 'anthropic' | 'gemini';

/**
 * Provider instances the catalog can route to. `type` picks the adapter; `envPrefix` the
 * credentials (<PREFIX>_API_KEY, <PREFIX>_BASE_URL, <PREFIX>_TIMEOUT_MS). `inlineImages`: the
 * upstream needs image bytes (the gateway fetches http(s) images, SSRF-guarded, and sends data: URLs).
 */
const INSTANCES: Record<string, { type: string; env?: EnvProvider; inlineImages: boolean; embeddings: boolean; images: boolean; exactTokens: boolean }> = {
  openai: { type: 'openai', env: 'openai', inlineImages: false, embeddings: true, images: true, exactTokens: true },
  deepseek: { type: 'openai', env: 'deepseek', inlineImages: false, embeddings: false, images: false, exactTokens: false },
  anthropic: { type: 'anthropic', env: 'anthropic', inlineImages: true, embeddings: false, images: false, exactTokens: false },
  gemini: { type: 'gemini', env: 'gemini', inlineImages: true, embeddings: false, images: true, exactTokens: false },
  local: { type: 'local', inlineImages: false, embeddings: true, images: true, exactTokens: true },
};

export const PROVIDER_NAMES = Object.keys(INSTANCES);

/** Resolves a catalog entry to a provider client; the only place that knows provider types. */
@Injectable()
export class ProviderRegistry implements OnApplicationShutdown {
  private readonly http = new ProviderHttpClient();
  readonly embedder = new LexicalEmbedder();
  readonly tokens = new TokenCounter('o200k_base');
  readonly embeddingTokens = new TokenCounter('cl100k_base');
  private readonly chatProviders = new Map<string, ChatProvider>();

  constructor(private readonly config: AppConfig) {}

  async onApplicationShutdown(): Promise<void> {
    await this.http.close();
  }

  preloadTokenizers(): void {
    this.tokens.preload();
    this.embeddingTokens.preload();
  }

  /** Env variable that must be set for the model to be callable, or null when it is available. */
  missingCredential(model: ModelEntry): string | null {
    const inst = INSTANCES[model.provider];
    if (!inst?.env) return null;
    return this.config.provider(inst.env).apiKey ? null : `${inst.env.toUpperCase()}_API_KEY`;
  }

  isAvailable(model: ModelEntry): boolean {
    return this.missingCredential(model) === null;
  }

  /**
   * Does the gateway's tokenizer count this model's prompt as the provider will? True for OpenAI's
   * own models (o200k) and the local model; false where another tokenizer bills (reservations pad more).
   */
  countsTokensExactly(model: ModelEntry): boolean {
    const inst = INSTANCES[model.provider];
    if (!inst?.exactTokens) return false;
    // a custom OPENAI_BASE_URL (vLLM, Ollama, OpenRouter) bills with its own tokenizer
    return inst.type !== 'openai' || /^https:\/\/api\.openai\.com\//.test(this.config.provider(inst.env as EnvProvider).baseUrl + '/');
  }

  needsInlineImages(model: ModelEntry): boolean {
    const inst = INSTANCES[model.provider];
    if (!inst) return false;
    // <PROVIDER>_INLINE_IMAGES: a self-hosted OpenAI-compatible upstream gets bytes, never a URL to fetch
    return inst.inlineImages || (inst.env !== undefined && this.config.provider(inst.env).inlineImages);
  }

  chat(model: ModelEntry): ChatProvider {
    this.assertAvailable(model);
    let p = this.chatProviders.get(model.provider);
    if (!p) {
      const inst = INSTANCES[model.provider];
      p = inst.type === 'local' ? new LocalChatProvider(this.embedder, this.tokens) : new HttpChatProvider(getChatAdapter(inst.type), this.connection(inst.env as EnvProvider), this.http);
      this.chatProviders.set(model.provider, p);
    }
    return p;
  }

  embeddings(model: ModelEntry): EmbeddingProvider {
    this.assertAvailable(model);
    const inst = INSTANCES[model.provider];
    if (!inst.embeddings) throw ApiError.badRequest(`Provider ${model.provider} does not serve embeddings.`, 'model');
    if (inst.type === 'local') return new LocalEmbeddingProvider(this.embedder, this.embeddingTokens, model.dimensions ?? 1536);
    const conn = this.connection(inst.env as EnvProvider);
    const http = this.http;
    return {
      async embed(req, signal) {
        const { url, headers, body } = buildEmbeddingRequest(req, conn);
        const res = await http.postJson(url, headers, body, { timeoutMs: conn.timeoutMs, signal, mapError: mapOpenAiError });
        return mapEmbeddingResponse(res.json);
      },
    };
  }

  images(model: ModelEntry): ImageProvider {
    this.assertAvailable(model);
    const inst = INSTANCES[model.provider];
    if (!inst.images) throw ApiError.badRequest(`Provider ${model.provider} does not generate images.`, 'model');
    if (inst.type === 'local') return new LocalImageProvider();
    const conn = this.connection(inst.env as EnvProvider);
    return inst.type === 'gemini' ? new GeminiImageProvider(conn, this.http) : new OpenAiImageProvider(conn, this.http);
  }

  private assertAvailable(model: ModelEntry): void {
    const missing = this.missingCredential(model);
    if (missing) throw ApiError.unavailable(`Model ${model.key} is unavailable: its provider "${model.provider}" has no credentials. Set ${missing} on the gateway.`, 'model_unavailable');
  }

  private connection(env: EnvProvider): ProviderConnection {
    const p = this.config.provider(env);
    return { apiKey: p.apiKey ?? '', baseUrl: p.baseUrl, timeoutMs: p.timeoutMs };
  }
}
