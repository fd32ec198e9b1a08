import { parsePaymentsEnv, PaymentsEnv } from './payments-env';
import { accounts, type AccountsEnv } from './env/accounts-env';
import {
  billingDurability,
  defaultReservationTtlSeconds,
  documents,
  pricing,
  type BillingDurability,
  type DocumentsEnv,
  type PricingEnv,
} from './env/billing-env';
import { ocr, pdfText, type OcrEnv, type PdfTextEnv } from './env/knowledge-env';
import {
  alerts,
  LOG_LEVELS,
  otel,
  requestLog,
  type AlertsEnv,
  type LogLevel,
  type OtelEnv,
  type RequestLogEnv,
} from './env/observability-env';
import {
  catalogVariables,
  modelAliases,
  provider,
  type McpEnv,
  type ProviderEnv,
  type ProviderEnvDeclaration,
  type ResilienceEnv,
} from './env/providers-env';
import { bool, ConfigError, decimal, Env, int, optionalInt, str, url } from './env/readers';
import {
  imageUrlSecret,
  integrationSecretKey,
  outboundAllowCidrs,
  trustProxy,
  type AllowedCidr,
} from './env/security-env';

/**
 * The one environment schema. Every variable the service reads is declared here, validated once at
 * boot (fail fast with a message naming the variable) and exposed through AppConfig's typed getters.
 * docs/configuration.md lists every variable of this schema.
 */

export { ConfigError } from './env/readers';
export type { AccountsEnv, OidcEnv, OidcRoleMapping } from './env/accounts-env';
export type { BillingDurability, DocumentsEnv, PricingEnv } from './env/billing-env';
export type { OcrEnv, PdfTextEnv } from './env/knowledge-env';
export { OTLP_PROTOCOLS } from './env/observability-env';
export type { AlertsEnv, LogLevel, OtelEnv, OtlpProtocol, RequestLogEnv } from './env/observability-env';
export { DEFAULT_MAX_RETRIES, missingProviderCredential } from './env/providers-env';
export type {
  McpEnv,
  ProviderEnv,
  ProviderEnvDeclaration,
  ProviderEnvVariable,
  ResilienceEnv,
} from './env/providers-env';
export type { AllowedCidr } from './env/security-env';

export interface EnvConfig {
  port: number;
  host: string;
  databaseUrl?: string;
  databaseSchema?: string;
  databasePoolSize: number;
  dataDir: string;
  redisUrl?: string;
  redisKeyPrefix: string;
  adminToken?: string;
  metricsToken?: string;
  bootstrapApiKey?: string;
  bootstrapBalanceRub: number;
  logLevel: LogLevel;
  bodyLimitMb: number;
  reservationTtlSeconds: number;
  /** holds taken from per-replica credit granted in bulk (no database write before dispatch) */
  billingCreditGrants: boolean;
  /** a replica's credit grant not renewed for this long (replica gone) returns to the balance */
  creditGrantTtlSeconds: number;
  /** durable: a charge commits before its answer; batched: applied against the grant at once, written in batches */
  billingDurability: BillingDurability;
  /** batched: the longest a charge waits in memory before its batch is written (ms) */
  billingFlushMs: number;
  authCacheTtlSeconds: number;
  /** failed authentications (API key or admin token) per client address per window before 429; 0 = off */
  authFailureLimit: number;
  authFailureWindowSeconds: number;
  /** Express's `trust proxy`: which proxies' X-Forwarded-For names the client address (undefined = none) */
  trustProxy?: boolean | number | string;
  shutdownGraceMs: number;
  modelsFile?: string;
  /** MODEL_ALIASES: requested model name → catalog key */
  modelAliases: Record<string, string>;
  rerankCacheTtlSeconds: number;
  rerankNearCacheMb: number;
  publicBaseUrl: string | undefined;
  imageUrlSecret: string | undefined;
  imageUrlTtlSeconds: number;
  ingestConcurrency: number;
  ingestPollMs: number;
  parserWorkers: number;
  parserMemoryMb: number;
  parserTimeoutMs: number;
  kbVectorCacheMb: number;
  memoryCacheMb: number;
  devWorkspace: boolean;
  integrationSecretKey: string | undefined;
  integrationPollMs: number;
  resilience: ResilienceEnv;
  /** every variable of the environment, for names the model catalog references (deployments' api_key_env / base_url_env) */
  catalogVariables: Record<string, string>;
  /** by provider name, one entry per declaration given to parseEnv (the provider definitions with env vars) */
  providers: Record<string, ProviderEnv>;
  /** requests / tokens per minute when the key or team sets none; undefined = unlimited */
  defaultKeyRpmLimit?: number;
  defaultKeyTpmLimit?: number;
  defaultTeamRpmLimit?: number;
  defaultTeamTpmLimit?: number;
  accounts: AccountsEnv;
  /** networks outbound requests (alert webhooks, integrations, link fetches) may reach despite the SSRF policy */
  outboundAllowCidrs: AllowedCidr[];
  alerts: AlertsEnv;
  ocr: OcrEnv;
  pdfText: PdfTextEnv;
  documents: DocumentsEnv;
  fx: PricingEnv;
  requestLog: RequestLogEnv;
  otel: OtelEnv;
  payments: PaymentsEnv;
  mcp: McpEnv;
}

/** Validates `env`; `providers` declares the provider variables to read (none: no provider settings). */
export function parseEnv(env: Env, providers: readonly ProviderEnvDeclaration[] = []): EnvConfig {
  const logLevel = (str(env, 'LOG_LEVEL') ?? 'info').toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`);
  }
  const adminToken = str(env, 'ADMIN_TOKEN');
  if (adminToken !== undefined && adminToken.length < 16) {
    throw new ConfigError('ADMIN_TOKEN must be at least 16 characters');
  }
  const metricsToken = str(env, 'METRICS_TOKEN');
  if (metricsToken !== undefined && metricsToken.length < 16) {
    throw new ConfigError('METRICS_TOKEN must be at least 16 characters');
  }
  const bootstrapApiKey = str(env, 'BOOTSTRAP_API_KEY');
  if (bootstrapApiKey !== undefined && bootstrapApiKey.length < 20) {
    throw new ConfigError('BOOTSTRAP_API_KEY must be at least 20 characters');
  }
  const schema = str(env, 'DATABASE_SCHEMA');
  if (schema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
    throw new ConfigError('DATABASE_SCHEMA must be a lower-case SQL identifier');
  }
  const providerTimeout = int(env, 'PROVIDER_TIMEOUT_MS', 120_000, 100, 3_600_000);
  return {
    port: int(env, 'PORT', 3000, 0, 65535),
    host: str(env, 'HOST') ?? '0.0.0.0',
    databaseUrl: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    databaseSchema: schema,
    databasePoolSize: int(env, 'DATABASE_POOL_SIZE', 10, 1, 500),
    dataDir: str(env, 'DATA_DIR') ?? './data',
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    redisKeyPrefix: str(env, 'REDIS_KEY_PREFIX') ?? 'gw',
    adminToken,
    metricsToken,
    bootstrapApiKey,
    bootstrapBalanceRub: decimal(env, 'BOOTSTRAP_BALANCE_RUB', 0, 0),
    logLevel: logLevel as LogLevel,
    bodyLimitMb: int(env, 'BODY_LIMIT_MB', 25, 1, 200),
    reservationTtlSeconds: int(
      env,
      'RESERVATION_TTL_SECONDS',
      defaultReservationTtlSeconds(env, providers, providerTimeout),
      10,
      86_400,
    ),
    // on by default on both databases: a request's charge is its only write
    billingCreditGrants: bool(env, 'BILLING_CREDIT_GRANTS', true),
    creditGrantTtlSeconds: int(env, 'CREDIT_GRANT_TTL_SECONDS', 30, 3, 3_600),
    billingDurability: billingDurability(env),
    billingFlushMs: int(env, 'BILLING_FLUSH_MS', 50, 1, 60_000),
    authCacheTtlSeconds: int(env, 'AUTH_CACHE_TTL_SECONDS', 5, 0, 5),
    authFailureLimit: int(env, 'AUTH_FAILURE_LIMIT', 20, 0, 1_000_000),
    authFailureWindowSeconds: int(env, 'AUTH_FAILURE_WINDOW_SECONDS', 60, 1, 86_400),
    trustProxy: trustProxy(env),
    shutdownGraceMs: int(env, 'SHUTDOWN_GRACE_MS', 25_000, 0, 600_000),
    modelsFile: str(env, 'MODELS_FILE'),
    modelAliases: modelAliases(env),
    rerankCacheTtlSeconds: int(env, 'RERANK_CACHE_TTL_SECONDS', 43_200, 1, 30 * 86_400),
    rerankNearCacheMb: int(env, 'RERANK_NEAR_CACHE_MB', 256, 0, 65_536),
    publicBaseUrl: url(env, 'PUBLIC_BASE_URL', ['http:', 'https:']),
    imageUrlSecret: imageUrlSecret(env),
    imageUrlTtlSeconds: int(env, 'IMAGE_URL_TTL_SECONDS', 3600, 60, 7 * 86_400),
    ingestConcurrency: int(env, 'INGEST_CONCURRENCY', 2, 0, 64),
    ingestPollMs: int(env, 'INGEST_POLL_MS', 1000, 50, 60_000),
    parserWorkers: int(env, 'PARSER_WORKERS', 2, 1, 32),
    parserMemoryMb: int(env, 'PARSER_MEMORY_MB', 512, 64, 16_384),
    parserTimeoutMs: int(env, 'PARSER_TIMEOUT_MS', 60_000, 100, 3_600_000),
    kbVectorCacheMb: int(env, 'KB_VECTOR_CACHE_MB', 256, 0, 65_536),
    memoryCacheMb: int(env, 'MEMORY_CACHE_MB', 256, 1, 65_536),
    devWorkspace: bool(env, 'DEV_WORKSPACE', true),
    integrationSecretKey: integrationSecretKey(env),
    integrationPollMs: int(env, 'INTEGRATION_POLL_MS', 10_000, 50, 600_000),
    resilience: {
      retryBaseDelayMs: int(env, 'RETRY_BASE_DELAY_MS', 250, 0, 60_000),
      retryMaxDelayMs: int(env, 'RETRY_MAX_DELAY_MS', 4_000, 0, 600_000),
      retryAfterMaxMs: int(env, 'RETRY_AFTER_MAX_MS', 10_000, 0, 600_000),
      deploymentCooldownMs: int(env, 'DEPLOYMENT_COOLDOWN_SECONDS', 30, 0, 86_400) * 1000,
    },
    catalogVariables: catalogVariables(env),
    providers: Object.fromEntries(providers.map((d) => [d.name, provider(env, d.env, providerTimeout)])),
    defaultKeyRpmLimit: optionalInt(env, 'DEFAULT_KEY_RPM_LIMIT', 1, 10_000_000),
    defaultKeyTpmLimit: optionalInt(env, 'DEFAULT_KEY_TPM_LIMIT', 1, 1_000_000_000),
    defaultTeamRpmLimit: optionalInt(env, 'DEFAULT_TEAM_RPM_LIMIT', 1, 10_000_000),
    defaultTeamTpmLimit: optionalInt(env, 'DEFAULT_TEAM_TPM_LIMIT', 1, 1_000_000_000),
    accounts: accounts(env),
    outboundAllowCidrs: outboundAllowCidrs(env),
    alerts: alerts(env),
    ocr: ocr(env),
    pdfText: pdfText(env),
    documents: documents(env),
    fx: pricing(env),
    requestLog: requestLog(env),
    otel: otel(env),
    mcp: {
      callTimeoutMs: int(env, 'MCP_CALL_TIMEOUT_MS', 60_000, 100, 3_600_000),
      maxToolRounds: int(env, 'MCP_MAX_TOOL_ROUNDS', 8, 1, 64),
    },
    payments: parsePaymentsEnv({
      str: (name) => str(env, name),
      int: (name, def, min, max) => int(env, name, def, min, max),
      bool: (name, def) => bool(env, name, def),
      url: (name, protocols) => url(env, name, protocols),
      fail: (message) => new ConfigError(message),
    }),
  };
}
