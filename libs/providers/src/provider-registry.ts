import { Injectable } from '@nestjs/common';
import { ApiError } from '@app/common';
import { AppConfig } from '@app/config';
import { ADAPTER_FAMILIES } from './adapter-families';
import { ModelEntry } from './catalog/model-catalog';
import { ChatProvider, EmbeddingProvider } from './chat-provider';
import { ProviderHttpClient } from './http/provider-http.client';
import { ImageProvider } from './images/image-providers';
import { LexicalEmbedder } from './local/lexical-embedder';
import { ProviderAdapters, ProviderFactoryContext } from './provider-adapters';
import { findProviderDefinition, PROVIDER_DEFINITIONS, ProviderDefinition } from './provider-definitions';
import { TokenizerService } from './tokenizer.service';

/**
 * Resolves a catalog entry to a provider client: a lookup over the provider definitions
 * (provider-definitions.ts) and their adapter families (adapter-families.ts). Knows no provider.
 */
@Injectable()
export class ProviderRegistry {
  private readonly chatProviders = new Map<string, ChatProvider>();

  constructor(
    private readonly config: AppConfig,
    private readonly http: ProviderHttpClient,
    private readonly tokenizers: TokenizerService,
    private readonly embedder: LexicalEmbedder,
  ) {
    for (const d of PROVIDER_DEFINITIONS) {
      if (!ADAPTER_FAMILIES[d.type]) throw new Error(`Provider "${d.name}": no adapter family "${d.type}"`);
    }
  }

  /** Env variable that must be set for the model to be callable, or null when it is available. */
  missingCredential(model: ModelEntry): string | null {
    const d = findProviderDefinition(model.provider);
    if (!d?.env) return null;
    return this.config.provider(d.name).apiKey ? null : `${d.env.prefix}_API_KEY`;
  }

  isAvailable(model: ModelEntry): boolean {
    return this.missingCredential(model) === null;
  }

  /**
   * Does the gateway's tokenizer count this model's prompt as the provider will? (See
   * ProviderDefinition.exactTokens.) False means reservations pad more.
   */
  countsTokensExactly(model: ModelEntry): boolean {
    const d = findProviderDefinition(model.provider);
    if (!d || d.exactTokens === 'never') return false;
    if (d.exactTokens === 'always' || !d.env) return d.exactTokens === 'always';
    return sameHttpsOrigin(this.config.provider(d.name).baseUrl, d.env.defaultBaseUrl);
  }

  needsInlineImages(model: ModelEntry): boolean {
    const d = findProviderDefinition(model.provider);
    if (!d) return false;
    // <PREFIX>_INLINE_IMAGES: a self-hosted OpenAI-compatible upstream gets bytes, never a URL to fetch
    return d.inlineImages || (d.env !== undefined && this.config.provider(d.name).inlineImages);
  }

  chat(model: ModelEntry): ChatProvider {
    const d = this.available(model);
    let p = this.chatProviders.get(d.name);
    if (!p) {
      p = this.family(d).chat(this.context(d));
      this.chatProviders.set(d.name, p);
    }
    return p;
  }

  embeddings(model: ModelEntry): EmbeddingProvider {
    const d = this.available(model);
    const family = this.family(d);
    if (!d.capabilities.embeddings || !family.embeddings) throw ApiError.badRequest(`Provider ${d.name} does not serve embeddings.`, 'model');
    return family.embeddings(this.context(d), model);
  }

  images(model: ModelEntry): ImageProvider {
    const d = this.available(model);
    const family = this.family(d);
    if (!d.capabilities.images || !family.images) throw ApiError.badRequest(`Provider ${d.name} does not generate images.`, 'model');
    return family.images(this.context(d));
  }

  /** The model's provider definition, once its credentials are known to be set (503 otherwise). */
  private available(model: ModelEntry): ProviderDefinition {
    const missing = this.missingCredential(model);
    if (missing) throw ApiError.unavailable(`Model ${model.key} is unavailable: its provider "${model.provider}" has no credentials. Set ${missing} on the gateway.`, 'model_unavailable');
    const d = findProviderDefinition(model.provider);
    if (!d) throw new Error(`Model ${model.key}: unknown provider "${model.provider}"`); // the catalog refuses these at start
    return d;
  }

  private family(d: ProviderDefinition): ProviderAdapters {
    return ADAPTER_FAMILIES[d.type];
  }

  private context(d: ProviderDefinition): ProviderFactoryContext {
    const config = this.config;
    return {
      http: this.http,
      tokenizers: this.tokenizers,
      embedder: this.embedder,
      connection() {
        if (!d.env) throw new Error(`Provider "${d.name}" has no connection settings`);
        const p = config.provider(d.name);
        return { apiKey: p.apiKey ?? '', baseUrl: p.baseUrl, timeoutMs: p.timeoutMs };
      },
    };
  }
}

/** Same https origin (a base URL on the provider's own host, whatever its path). */
function sameHttpsOrigin(a: string, b: string): boolean {
  try {
    const x = new URL(a);
    return x.protocol === 'https:' && x.origin === new URL(b).origin;
  } catch {
    return false;
  }
}
