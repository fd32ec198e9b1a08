import { Injectable, Optional } from '@nestjs/common';
import { ApiError, Clock, ParserPool } from '@app/common';
import { AppConfig, missingProviderCredential } from '@app/config';
import { ADAPTER_FAMILIES } from './adapter-families';
import { DeploymentSpec, ModelEntry } from './catalog/model-catalog';
import { ChatProvider, EmbeddingProvider } from './chat-provider';
import { ProviderHttpClient } from './http/provider-http.client';
import { ImageProvider } from './images/image-providers';
import { LexicalEmbedder } from './local/lexical-embedder';
import { ProviderAdapters, ProviderFactoryContext } from './provider-adapters';
import { findProviderDefinition, PROVIDER_DEFINITIONS, ProviderDefinition } from './provider-definitions';
import { TokenizerService } from './tokenizer/tokenizer.service';

/** One callable upstream of a model: the provider's own connection, or one of the catalog's `deployments`. */
export interface ChatDeployment {
  /** "default" for the provider's own connection, else the deployment's id */
  id: string;
  weight: number;
  provider: ChatProvider;
}

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
    private readonly clock: Clock = new Clock(),
    @Optional() private readonly pool?: ParserPool,
  ) {
    for (const d of PROVIDER_DEFINITIONS) {
      if (!ADAPTER_FAMILIES[d.type]) throw new Error(`Provider "${d.name}": no adapter family "${d.type}"`);
    }
  }

  /**
   * Env variable(s) that must be set for the model to be callable, or null when it is available
   * (the definition's `credentials` alternatives, default `<PREFIX>_API_KEY`). A model with catalog
   * `deployments` is callable when at least one deployment has a key.
   */
  missingCredential(model: ModelEntry): string | null {
    const d = findProviderDefinition(model.provider);
    if (!d?.env) return null;
    if (model.deployments) {
      const missing = model.deployments
        .filter((dep) => !this.deploymentKey(d, dep))
        .map((dep) => dep.api_key_env ?? `${d.env!.prefix}_API_KEY`);
      return missing.length < model.deployments.length ? null : [...new Set(missing)].join(' or ');
    }
    return missingProviderCredential(d.env.prefix, this.config.provider(d.name));
  }

  /** Why the model cannot be called (its provider lacks credentials), or null when it can. */
  unavailableReason(model: ModelEntry): string | null {
    const missing = this.missingCredential(model);
    return missing ? `Provider "${model.provider}" is not configured: set ${missing} on the gateway.` : null;
  }

  /** <PREFIX>_MAX_RETRIES of the model's provider (0 for a provider without env vars: the in-process local one). */
  maxRetries(model: ModelEntry): number {
    const d = findProviderDefinition(model.provider);
    return d?.env ? this.config.provider(d.name).maxRetries : 0;
  }

  /**
   * The upstreams a chat call to `model` may go to: one ("default") for a plain entry, or each of
   * the catalog's `deployments` that has a key (same adapter family, its own base URL and key).
   * 503 when none is callable.
   */
  chatDeployments(model: ModelEntry): ChatDeployment[] {
    if (!model.deployments) return [{ id: 'default', weight: 1, provider: this.chat(model) }];
    const d = this.available(model);
    const out: ChatDeployment[] = [];
    for (const dep of model.deployments) {
      const apiKey = this.deploymentKey(d, dep);
      if (!apiKey) continue;
      // the deployment's settings are part of the key: an operator's catalog edit may change them
      const cacheKey = [model.key, dep.id, dep.base_url, dep.base_url_env, dep.api_key_env].join('\u0000');
      let p = this.chatProviders.get(cacheKey);
      if (!p) {
        const base = this.context(d).connection();
        const baseUrl =
          dep.base_url ??
          (dep.base_url_env ? this.config.catalogVariable(dep.base_url_env) : undefined) ??
          base.baseUrl;
        p = this.family(d).chat({
          ...this.context(d),
          connection: () => ({ ...base, apiKey, baseUrl: baseUrl.replace(/\/+$/, '') }),
        });
        this.chatProviders.set(cacheKey, p);
      }
      out.push({ id: dep.id, weight: dep.weight, provider: p });
    }
    return out;
  }

  private deploymentKey(d: ProviderDefinition, dep: DeploymentSpec): string | undefined {
    return dep.api_key_env ? this.config.catalogVariable(dep.api_key_env) : this.config.provider(d.name).apiKey;
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

  /** Does the model's upstream speak the Anthropic Messages API (so /v1/messages passes bodies through natively)? */
  speaksMessagesApi(model: ModelEntry): boolean {
    return findProviderDefinition(model.provider)?.capabilities.messagesApi === true;
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
    if (!d.capabilities.embeddings || !family.embeddings)
      throw ApiError.badRequest(`Provider ${d.name} does not serve embeddings.`, 'model');
    return family.embeddings(this.context(d), model);
  }

  images(model: ModelEntry): ImageProvider {
    const d = this.available(model);
    const family = this.family(d);
    if (!d.capabilities.images || !family.images)
      throw ApiError.badRequest(`Provider ${d.name} does not generate images.`, 'model');
    return family.images(this.context(d));
  }

  /** The model's provider definition, once its credentials are known to be set (503 otherwise). */
  private available(model: ModelEntry): ProviderDefinition {
    const missing = this.missingCredential(model);
    if (missing)
      throw ApiError.unavailable(
        `Model ${model.key} is unavailable: its provider "${model.provider}" has no credentials. Set ${missing} on the gateway.`,
        'model_unavailable',
      );
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
      pool: this.pool,
      clock: this.clock,
      connection() {
        if (!d.env) throw new Error(`Provider "${d.name}" has no connection settings`);
        const p = config.provider(d.name);
        return { apiKey: p.apiKey ?? '', baseUrl: p.baseUrl, timeoutMs: p.timeoutMs, extra: p.extra };
      },
    };
  }
}

/** sameHttpsOrigin's answers by URL pair (a provider's configured and default base URLs: a handful per process). */
const sameOrigins = new Map<string, boolean>();

/** Same https origin (a base URL on the provider's own host, whatever its path). */
function sameHttpsOrigin(a: string, b: string): boolean {
  const key = `${a}\u0000${b}`;
  let same = sameOrigins.get(key);
  if (same === undefined) {
    try {
      const x = new URL(a);
      same = x.protocol === 'https:' && x.origin === new URL(b).origin;
    } catch {
      same = false;
    }
    if (sameOrigins.size >= 256) sameOrigins.clear();
    sameOrigins.set(key, same);
  }
  return same;
}
