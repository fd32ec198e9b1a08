import { accessSync, constants } from 'node:fs';
import { bool, ConfigError, Env, int, str, url } from './readers';

/** Providers: their <PREFIX>_* variables, retries and cooldowns, the catalog's variables and aliases, MCP. */

/**
 * The <PREFIX>_* variables of one provider: `<PREFIX>_API_KEY`, `_BASE_URL`, `_TIMEOUT_MS`,
 * `_INLINE_IMAGES`, `_MAX_RETRIES`. The provider definitions (libs/providers) carry one each; the
 * composition root hands them to `parseEnv` / `AppConfig.load`, so configuration depends on no
 * feature library.
 */
export interface ProviderEnvDeclaration {
  /** the provider's name (the catalog's `provider` value) */
  name: string;
  env: {
    prefix: string;
    defaultBaseUrl: string;
    /** retries of a retryable upstream failure when <PREFIX>_MAX_RETRIES is unset */
    defaultMaxRetries?: number;
    /** the provider's own variables, each read as `<PREFIX>_<name>` into ProviderEnv.extra */
    extra?: readonly ProviderEnvVariable[];
    /** alternatives of variable names that must all be set for the provider to count as configured */
    credentials?: readonly (readonly string[])[];
  };
}

/**
 * One provider-specific variable, `<PREFIX>_<name>`: a plain string, an http(s) URL (trailing
 * slashes dropped) or the path of a readable file; `oneOf` limits it to a set of values; `default`
 * applies when it is unset. Every one is validated at boot, the error naming the variable.
 */
export interface ProviderEnvVariable {
  name: string;
  kind?: 'string' | 'url' | 'file';
  oneOf?: readonly string[];
  default?: string;
}

/** <PREFIX>_MAX_RETRIES when neither the variable nor the definition says otherwise. */
export const DEFAULT_MAX_RETRIES = 2;

export interface ProviderEnv {
  apiKey?: string;
  baseUrl: string;
  timeoutMs: number;
  /** fetch image URLs in the gateway (SSRF-guarded) and send bytes, instead of letting the upstream fetch them */
  inlineImages: boolean;
  /** retries of a retryable upstream failure (connect error, 408/409/429/5xx) before giving up or falling back */
  maxRetries: number;
  /** the declaration's `extra` variables that are set (or have a default), by name without the prefix */
  extra: Record<string, string>;
  /** the declaration's credential alternatives (default: API_KEY alone) */
  credentials: readonly (readonly string[])[];
}

/**
 * The full names of the credential variables still to set, or null when the provider is
 * configured: of the alternatives that miss the fewest variables, each one's missing names joined
 * with " and ", the alternatives with " or " (e.g. "YANDEX_FOLDER_ID", "X_API_KEY or X_IAM_TOKEN").
 */
export function missingProviderCredential(prefix: string, p: ProviderEnv): string | null {
  const isSet = (name: string) => (name === 'API_KEY' ? p.apiKey : p.extra[name]) !== undefined;
  const missing = p.credentials.map((alt) => alt.filter((n) => !isSet(n)));
  const fewest = Math.min(...missing.map((m) => m.length));
  if (fewest === 0) return null;
  const phrases = missing.filter((m) => m.length === fewest).map((m) => m.map((n) => `${prefix}_${n}`).join(' and '));
  return [...new Set(phrases)].join(' or ');
}

/** Retry backoff and deployment cooldown; per-provider retry counts live in ProviderEnv. */
export interface ResilienceEnv {
  /** first backoff step; attempt k waits a random time in [0, min(max, base × 2^k)] (full jitter) */
  retryBaseDelayMs: number;
  retryMaxDelayMs: number;
  /** a provider's Retry-After is honoured up to this many ms */
  retryAfterMaxMs: number;
  /** a failing deployment is skipped for this long (shared through Redis when configured) */
  deploymentCooldownMs: number;
}

/** The MCP gateway (docs/mcp.md). */
export interface McpEnv {
  /** MCP_CALL_TIMEOUT_MS: how long a registered server may take to answer one request */
  callTimeoutMs: number;
  /** MCP_MAX_TOOL_ROUNDS: model calls one /v1/responses request with MCP tools makes at most */
  maxToolRounds: number;
}

/** The <PREFIX>_* variables of one provider declaration. */
export function provider(env: Env, spec: ProviderEnvDeclaration['env'], defaultTimeoutMs: number): ProviderEnv {
  const { prefix, defaultBaseUrl } = spec;
  const extra: Record<string, string> = {};
  for (const v of spec.extra ?? []) {
    const value = providerVariable(env, `${prefix}_${v.name}`, v);
    if (value !== undefined) extra[v.name] = value;
  }
  return {
    apiKey: str(env, `${prefix}_API_KEY`),
    baseUrl: url(env, `${prefix}_BASE_URL`, ['http:', 'https:']) ?? defaultBaseUrl,
    timeoutMs: int(env, `${prefix}_TIMEOUT_MS`, defaultTimeoutMs, 100, 3_600_000),
    inlineImages: bool(env, `${prefix}_INLINE_IMAGES`, false),
    maxRetries: int(env, `${prefix}_MAX_RETRIES`, spec.defaultMaxRetries ?? DEFAULT_MAX_RETRIES, 0, 10),
    extra,
    credentials: spec.credentials ?? [['API_KEY']],
  };
}

/** One ProviderEnvVariable, validated; undefined when unset and without a default. */
export function providerVariable(env: Env, name: string, v: ProviderEnvVariable): string | undefined {
  const kind = v.kind ?? 'string';
  let value = kind === 'url' ? url(env, name, ['http:', 'https:']) : str(env, name);
  if (value === undefined) value = v.default;
  if (value === undefined) return undefined;
  if (v.oneOf && !v.oneOf.includes(value))
    throw new ConfigError(`${name} must be one of ${v.oneOf.join(', ')}, got "${value}"`);
  if (kind === 'file') {
    try {
      accessSync(value, constants.R_OK);
    } catch {
      throw new ConfigError(`${name} must name a readable file, got "${value}"`);
    }
  }
  return value;
}

/** Upper-case names with a non-empty value: what a catalog deployment may reference by name. */
export function catalogVariables(env: Env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of Object.keys(env)) {
    if (!/^[A-Z][A-Z0-9_]*$/.test(name)) continue;
    const v = str(env, name);
    if (v !== undefined) out[name] = v;
  }
  return out;
}

/**
 * MODEL_ALIASES: comma-separated `name=catalog-key` pairs, for clients that ask for model names the
 * catalog lacks (e.g. `claude-sonnet-4-5-20250929=claude-sonnet-4`). Whether each key exists is
 * checked against the catalog at start.
 */
export function modelAliases(env: Env): Record<string, string> {
  const raw = str(env, 'MODEL_ALIASES');
  const out: Record<string, string> = {};
  if (raw === undefined) return out;
  for (const pair of raw.split(',').map((p) => p.trim())) {
    if (pair === '') continue;
    const m = /^([^=\s]+)\s*=\s*([^=\s]+)$/.exec(pair);
    if (!m) throw new ConfigError(`MODEL_ALIASES must be comma-separated name=model pairs, got "${pair}"`);
    if (Object.prototype.hasOwnProperty.call(out, m[1])) throw new ConfigError(`MODEL_ALIASES names "${m[1]}" twice`);
    out[m[1]] = m[2];
  }
  return out;
}
