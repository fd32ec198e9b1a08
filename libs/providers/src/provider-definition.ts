/**
 * A provider as data: which adapter family serves it, which environment variables configure it and
 * what it can do. Data only, on purpose: the configuration reads the provider variables these
 * definitions declare (provider-definitions.ts → AppConfig.load), before any service exists.
 */

import type { ProviderEnvVariable } from '@app/config';

export type { ProviderEnvVariable } from '@app/config';

/**
 * `<PREFIX>_API_KEY`, `<PREFIX>_BASE_URL`, `<PREFIX>_TIMEOUT_MS`, `<PREFIX>_INLINE_IMAGES`,
 * `<PREFIX>_MAX_RETRIES`, plus the provider's own `extra` variables. A definition with env vars may
 * also be given several upstream `deployments` per model in the catalog (the local provider, without
 * env, cannot).
 */
export interface ProviderEnvSpec {
  prefix: string;
  defaultBaseUrl: string;
  /** retries of a retryable upstream failure when <PREFIX>_MAX_RETRIES is unset (default 2) */
  defaultMaxRetries?: number;
  /**
   * The provider's own variables beyond the standard five, each read as `<PREFIX>_<name>`, validated
   * at boot and handed to its adapters as `connection().extra[name]` (e.g. GigaChat's `AUTH_KEY`).
   */
  extra?: readonly ProviderEnvVariable[];
  /**
   * What makes the provider configured: alternatives, each a list of variable names (suffixes after
   * `<PREFIX>_`, `API_KEY` or an `extra` name) that must all be set. Default `[['API_KEY']]`.
   * E.g. `[['API_KEY', 'FOLDER_ID'], ['IAM_TOKEN', 'FOLDER_ID']]`: a key or a token, and a folder.
   */
  credentials?: readonly (readonly string[])[];
}

/**
 * Where the provider keeps the data it is sent: `ru` (a Russian provider or the gateway itself) or
 * `foreign`. Listed with every model; a data-protection policy can route by it.
 */
export type Jurisdiction = 'ru' | 'foreign';

export interface ProviderCapabilities {
  chat: boolean;
  embeddings: boolean;
  images: boolean;
  /** the upstream speaks the Anthropic Messages API: /v1/messages bodies and events pass through natively */
  messagesApi?: boolean;
  /** image generation makes one upstream call per image (n images: n calls, each sending the prompt) */
  imageCallPerImage?: boolean;
}

export interface ProviderDefinition {
  /** the catalog's `provider` value (models.json) */
  name: string;
  /** adapter family (one folder each: openai, anthropic, gemini, gigachat, local); OpenAI-compatible upstreams are `openai` */
  type: string;
  /** credentials and endpoint; absent for the offline `local` provider, which needs none */
  env?: ProviderEnvSpec;
  capabilities: ProviderCapabilities;
  /** where the provider keeps the data (see Jurisdiction) */
  jurisdiction: Jurisdiction;
  /** the upstream needs image bytes: the gateway fetches http(s) images (SSRF-guarded) and sends data: URLs */
  inlineImages: boolean;
  /**
   * Does the gateway's tokenizer (o200k) count prompts as the provider bills them? `always`, `never`,
   * or `at-default-base-url`: only while <PREFIX>_BASE_URL points at the provider's own origin (a
   * custom URL — vLLM, Ollama, OpenRouter — bills with its own tokenizer; reservations then pad more).
   */
  exactTokens: 'always' | 'never' | 'at-default-base-url';
}
