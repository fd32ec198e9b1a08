import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { ApiError } from '@app/common';
import { AppConfig } from '@app/config';
import { getChatAdapter } from './adapters';
import { DeploymentSpec, ModelEntry } from './catalog/model-catalog';
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

/** One callable upstream of a model: the provider's own connection, or one of the catalog's `deployments`. */
export interface ChatDeployment {
  /** "default" for the provider's own connection, else the deployment's id */
  id: string;
  weight: number;
  provider: ChatProvider;
}

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
    if (model.deployments) {
      // callable when at least one deployment has a key (its own api_key_env, or the provider's)
      const missing = model.deployments.filter((d) => !this.deploymentKey(inst.env as EnvProvider, d)).map((d) => d.api_key_env ?? `${inst.env!.toUpperCase()}_API_KEY`);
      return missing.length < model.deployments.length ? null : [...new Set(missing)].join(' or ');
    }
    return this.config.provider(inst.env).apiKey ? null : `${inst.env.toUpperCase()}_API_KEY`;
  }

  /** <PROVIDER>_MAX_RETRIES of the model's provider (0 for the in-process local provider). */
  maxRetries(model: ModelEntry): number {
    const inst = INSTANCES[model.provider];
    return inst?.env ? this.config.provider(inst.env).maxRetries : 0;
  }

  /**
   * The upstreams a chat call to `model` may go to: one ("default") for a plain entry, or each of
   * the catalog's `deployments` that has a key. 503 when none is callable.
   */
  chatDeployments(model: ModelEntry): ChatDeployment[] {
    if (!model.deployments) return [{ id: 'default', weight: 1, provider: this.chat(model) }];
    this.assertAvailable(model);
    const inst = INSTANCES[model.provider];
    const env = inst.env as EnvProvider;
    const out: ChatDeployment[] = [];
    for (const d of model.deployments) {
      const apiKey = this.deploymentKey(env, d);
      if (!apiKey) continue;
      const cacheKey = `${model.key}\u0000${d.id}`;
      let p = this.chatProviders.get(cacheKey);
      if (!p) {
        const base = this.connection(env);
        const baseUrl = d.base_url ?? (d.base_url_env ? this.config.catalogVariable(d.base_url_env) : undefined) ?? base.baseUrl;
        p = new HttpChatProvider(getChatAdapter(inst.type), { ...base, apiKey, baseUrl: baseUrl.replace(/\/+$/, '') }, this.http);
        this.chatProviders.set(cacheKey, p);
      }
      out.push({ id: d.id, weight: d.weight, provider: p });
    }
    return out;
  }

  private deploymentKey(env: EnvProvider, d: DeploymentSpec): string | undefined {
    return d.api_key_env ? this.config.catalogVariable(d.api_key_env) : this.config.provider(env).apiKey;
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
