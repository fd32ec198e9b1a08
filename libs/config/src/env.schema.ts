import { accessSync, constants } from 'node:fs';
import { isIP } from 'node:net';
import { parsePaymentsEnv, PaymentsEnv } from './payments-env';

/**
 * The one environment schema. Every variable the service reads is declared here, validated once at
 * boot (fail fast with a message naming the variable) and exposed through AppConfig's typed getters.
 * docs/configuration.md lists every variable of this schema.
 */

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

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

const BILLING_DURABILITIES = ['durable', 'batched'] as const;
export type BillingDurability = (typeof BILLING_DURABILITIES)[number];

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

function str(env: Env, name: string): string | undefined {
  const v = env[name];
  if (v === undefined) return undefined;
  const t = v.trim();
  return t === '' ? undefined : t;
}

function int(env: Env, name: string, def: number, min: number, max: number): number {
  const raw = str(env, name);
  if (raw === undefined) return def;
  if (!/^-?\d+$/.test(raw)) throw new ConfigError(`${name} must be an integer, got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${n}`);
  return n;
}

/** An optional integer: unset (or empty) → undefined. */
function optionalInt(env: Env, name: string, min: number, max: number): number | undefined {
  return str(env, name) === undefined ? undefined : int(env, name, 0, min, max);
}

function decimal(env: Env, name: string, def: number, min: number): number {
  const raw = str(env, name);
  if (raw === undefined) return def;
  if (!/^\d+(\.\d{1,6})?$/.test(raw))
    throw new ConfigError(`${name} must be a non-negative number with at most 6 decimals, got "${raw}"`);
  const n = Number(raw);
  if (n < min) throw new ConfigError(`${name} must be >= ${min}, got ${n}`);
  return n;
}

function url(env: Env, name: string, protocols: string[]): string | undefined {
  const raw = str(env, name);
  if (raw === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} is not a valid URL`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must use ${protocols.join(' or ')} (got ${parsed.protocol})`);
  }
  return raw.replace(/\/+$/, '');
}

/**
 * TRUST_PROXY: unset or "false" → the socket's address is the client's; "true" → the left-most
 * X-Forwarded-For entry; a number → that many proxy hops are trusted; otherwise a comma-separated list
 * of addresses, subnets or Express's names (loopback, linklocal, uniquelocal) of the trusted proxies.
 */
function trustProxy(env: Env): boolean | number | string | undefined {
  const raw = str(env, 'TRUST_PROXY');
  if (raw === undefined || raw === 'false') return undefined;
  if (raw === 'true') return true;
  if (/^\d+$/.test(raw)) return int(env, 'TRUST_PROXY', 0, 0, 100);
  const parts = raw.split(',').map((p) => p.trim());
  if (parts.some((p) => !/^[0-9a-fA-F:./]+$/.test(p) && !['loopback', 'linklocal', 'uniquelocal'].includes(p)))
    throw new ConfigError(
      `TRUST_PROXY must be true, false, a hop count or a comma-separated list of addresses/subnets, got "${raw}"`,
    );
  return parts.join(',');
}

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

/** Users, sessions, sign-in throttling, invitations, audit log, SSO. */
export interface AccountsEnv {
  bootstrapOperatorEmail?: string;
  bootstrapOperatorPassword?: string;
  /** a session unused this long ends */
  sessionIdleTimeoutMs: number;
  /** a session ends this long after sign-in, however active */
  sessionMaxAgeMs: number;
  /** failed sign-ins per account / per client address within the window before 429 */
  loginMaxFailuresPerAccount: number;
  loginMaxFailuresPerIp: number;
  loginThrottleWindowMs: number;
  invitationTtlMs: number;
  auditRetentionMs: number;
  smtpUrl?: string;
  mailFrom?: string;
  oidc?: OidcEnv;
  /** password sign-in only for operators (OIDC_ONLY) */
  oidcOnly: boolean;
}

/** One OIDC_ROLE_MAPPING entry: members of `group` get `role` in `teamId`. */
export interface OidcRoleMapping {
  group: string;
  teamId: string;
  role: 'viewer' | 'member' | 'admin' | 'owner';
}

/** OpenID Connect sign-in (authorization code flow with PKCE). */
export interface OidcEnv {
  issuer: string;
  clientId: string;
  clientSecret?: string;
  redirectUri: string;
  scopes: string;
  autoProvision: boolean;
  groupsClaim: string;
  roleMapping: OidcRoleMapping[];
  /** where the browser goes after a successful SSO sign-in */
  postLoginUrl: string;
}

/** One OUTBOUND_ALLOW_CIDRS entry: a network the SSRF guard lets outbound requests reach. */
export interface AllowedCidr {
  address: string;
  prefix: number;
  family: 'ipv4' | 'ipv6';
}

/** Alert evaluation and delivery. */
/** OCR of PDFs without a text layer (tesseract + pdftoppm as child processes, in the ingestion step) */
export interface OcrEnv {
  /** OCR_ENABLED: false turns OCR off even where the tools are installed */
  enabled: boolean;
  /** pages of one document OCR reads at most; a longer scan fails with parse_limit_exceeded */
  maxPages: number;
  /** wall time of one document's OCR (rendering and recognition), its child processes killed past it */
  timeoutMs: number;
  /** address space of one tool process (pdftoppm or tesseract), MiB */
  memoryMb: number;
  /** TESSERACT_PATH / PDFTOPPM_PATH: the executables (unset: looked up on PATH) */
  tesseractPath: string | undefined;
  pdftoppmPath: string | undefined;
}

/** How a PDF's text layer is read */
export interface PdfTextEnv {
  /** PDF_TEXT_ENGINE: auto — poppler's pdftotext where it runs, else pdfjs; pdfjs — always pdfjs */
  engine: 'auto' | 'pdfjs';
  /** PDFTOTEXT_PATH: the executable (unset: looked up on PATH) */
  pdftotextPath: string | undefined;
}

export interface AlertsEnv {
  /** every replica evaluates every enabled rule this often (charges also trigger an evaluation of their team) */
  evalIntervalMs: number;
  /** attempts per delivery (the first included) before it is marked failed */
  deliveryMaxAttempts: number;
  /** first retry delay; each further retry waits twice as long (at most 10 minutes) */
  retryBaseMs: number;
  telegramApiBase: string;
}

/** Invoices and monthly acts (docs/documents.md). */
export interface DocumentsEnv {
  /** DOCUMENTS_TZ: the IANA zone of document dates, invoice years and act months */
  timeZone: string;
  /** ACTS_CLOSE_DAYS: a month's act is final from the next month's 1st day plus this many days */
  actsCloseDays: number;
}

/** USD prices at the CBR rate and the operators' catalog and team prices (docs/billing.md). */
export interface PricingEnv {
  /** FX_RATES_URL: the CBR daily XML; null ("off"): no fetching, only rates already stored */
  ratesUrl: string | null;
  /** FX_STALE_HOURS: hours without a successful fetch before the stale alert */
  staleHours: number;
  /** FX_MARKUP_PERCENT: added to USD prices on top of the rate */
  markupPercent: number;
  /** FX_CHECK_INTERVAL_MS: how often each replica checks whether a fetch is due (at most hourly) */
  checkIntervalMs: number;
  /** CATALOG_REFRESH_MS: how often each replica polls for catalog and team price changes */
  catalogRefreshMs: number;
}

/** express "trust proxy": false (default), true, a hop count, or a list of addresses / CIDRs / presets. */

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

/** The MCP gateway (docs/mcp.md). */
export interface McpEnv {
  /** MCP_CALL_TIMEOUT_MS: how long a registered server may take to answer one request */
  callTimeoutMs: number;
  /** MCP_MAX_TOOL_ROUNDS: model calls one /v1/responses request with MCP tools makes at most */
  maxToolRounds: number;
}

/** The team request log: its write queue, body cap and default retention (docs/request-log.md). */
export interface RequestLogEnv {
  /** false: no record is written (the API answers from what is stored) */
  enabled: boolean;
  /** records waiting to be written; from half full on bodies are dropped, at the bound records */
  queueMax: number;
  /** records written per insert */
  batchSize: number;
  /** a partial batch is written after this long */
  flushMs: number;
  /** each stored body is cut at this many bytes (marked truncated) */
  bodyMaxBytes: number;
  retentionDays: number;
  bodyRetentionDays: number;
  /** how often the retention job runs, and how many rows one of its statements deletes */
  retentionIntervalMs: number;
  deleteBatch: number;
}

/** The OTLP transports of the OpenTelemetry exporters (OTEL_EXPORTER_OTLP_PROTOCOL). */
export const OTLP_PROTOCOLS = ['http/protobuf', 'http/json', 'grpc'] as const;
export type OtlpProtocol = (typeof OTLP_PROTOCOLS)[number];

/** OpenTelemetry trace export (the SDK's OTLP exporters); off while no endpoint is set. */
export interface OtelEnv {
  /**
   * Where spans go: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given, else OTEL_EXPORTER_OTLP_ENDPOINT
   * (+ `/v1/traces` over HTTP; the gRPC exporter takes the base URL).
   */
  endpoint?: string;
  protocol: OtlpProtocol;
  /** extra request headers or gRPC metadata (OTEL_EXPORTER_OTLP_HEADERS, then _TRACES_HEADERS: key=value,key=value) */
  headers: Record<string, string>;
  compression: 'gzip' | 'none';
  serviceName: string;
  /** OTEL_RESOURCE_ATTRIBUTES: key=value,key=value */
  resourceAttributes: Record<string, string>;
  scheduleDelayMs: number;
  maxExportBatchSize: number;
  maxQueueSize: number;
  exportTimeoutMs: number;
}

/** The <PREFIX>_* variables of one provider declaration. */
function provider(env: Env, spec: ProviderEnvDeclaration['env'], defaultTimeoutMs: number): ProviderEnv {
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
function providerVariable(env: Env, name: string, v: ProviderEnvVariable): string | undefined {
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

function bool(env: Env, name: string, def: boolean): boolean {
  const raw = str(env, name);
  if (raw === undefined) return def;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

/** BILLING_DURABILITY: batched charges come out of credit grants, so it needs them. */
function billingDurability(env: Env): BillingDurability {
  const raw = (str(env, 'BILLING_DURABILITY') ?? 'durable').toLowerCase();
  if (!(BILLING_DURABILITIES as readonly string[]).includes(raw))
    throw new ConfigError(`BILLING_DURABILITY must be one of ${BILLING_DURABILITIES.join(', ')}, got "${raw}"`);
  if (raw === 'batched' && !bool(env, 'BILLING_CREDIT_GRANTS', true))
    throw new ConfigError('BILLING_DURABILITY=batched needs credit grants: leave BILLING_CREDIT_GRANTS on');
  return raw as BillingDurability;
}

function integrationSecretKey(env: Env): string | undefined {
  const v = str(env, 'INTEGRATION_SECRET_KEY');
  if (v !== undefined && v.length < 32) throw new ConfigError('INTEGRATION_SECRET_KEY must be at least 32 characters');
  return v;
}

function imageUrlSecret(env: Env): string | undefined {
  const v = str(env, 'IMAGE_URL_SECRET');
  if (v !== undefined && v.length < 32) throw new ConfigError('IMAGE_URL_SECRET must be at least 32 characters');
  return v;
}

/**
 * A hold must outlive the longest request: the slowest provider's timeout plus the shutdown grace
 * (a request may be finishing while the replica drains), plus 30 s of margin.
 */
function defaultReservationTtlSeconds(
  env: Env,
  providers: readonly ProviderEnvDeclaration[],
  providerTimeoutMs: number,
): number {
  const timeouts = providers.map((d) => int(env, `${d.env.prefix}_TIMEOUT_MS`, providerTimeoutMs, 100, 3_600_000));
  const grace = int(env, 'SHUTDOWN_GRACE_MS', 25_000, 0, 600_000);
  return Math.ceil((Math.max(providerTimeoutMs, ...timeouts) + grace) / 1000) + 30;
}

/** Upper-case names with a non-empty value: what a catalog deployment may reference by name. */
function catalogVariables(env: Env): Record<string, string> {
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
function modelAliases(env: Env): Record<string, string> {
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

function email(env: Env, name: string): string | undefined {
  const v = str(env, name);
  if (v !== undefined && !/^[^\s@]+@[^\s@]+$/.test(v)) throw new ConfigError(`${name} must be an e-mail address`);
  return v?.toLowerCase();
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** OIDC_ROLE_MAPPING: `group=team_id:role` entries separated by commas or semicolons. */
function roleMapping(env: Env): OidcRoleMapping[] {
  const raw = str(env, 'OIDC_ROLE_MAPPING');
  if (raw === undefined) return [];
  return raw
    .split(/[;,]/)
    .map((e) => e.trim())
    .filter(Boolean)
    .map((entry) => {
      const m = /^(.+)=([0-9a-fA-F-]{36}):(viewer|member|admin|owner)$/.exec(entry);
      if (!m)
        throw new ConfigError(
          `OIDC_ROLE_MAPPING entries are group=team_id:role (role: viewer, member, admin or owner), got "${entry}"`,
        );
      return { group: m[1].trim(), teamId: m[2].toLowerCase(), role: m[3] as OidcRoleMapping['role'] };
    });
}

function oidc(env: Env): OidcEnv | undefined {
  if (url(env, 'OIDC_ISSUER', ['http:', 'https:']) === undefined) return undefined;
  // kept exactly as given: the discovery document's `issuer` must match it character for character
  const issuer = str(env, 'OIDC_ISSUER') as string;
  const parsed = new URL(issuer);
  // the issuer is operator configuration fetched directly: TLS required except on loopback (development, tests)
  if (parsed.protocol === 'http:' && !LOOPBACK_HOSTS.has(parsed.hostname))
    throw new ConfigError('OIDC_ISSUER must use https:// (http:// is accepted only on loopback addresses)');
  const clientId = str(env, 'OIDC_CLIENT_ID');
  const redirectUri = url(env, 'OIDC_REDIRECT_URI', ['http:', 'https:']);
  if (!clientId || !redirectUri)
    throw new ConfigError('OIDC_CLIENT_ID and OIDC_REDIRECT_URI must be set with OIDC_ISSUER');
  return {
    issuer,
    clientId,
    clientSecret: str(env, 'OIDC_CLIENT_SECRET'),
    redirectUri,
    scopes: str(env, 'OIDC_SCOPES') ?? 'openid email profile',
    autoProvision: bool(env, 'OIDC_AUTO_PROVISION', false),
    groupsClaim: str(env, 'OIDC_GROUPS_CLAIM') ?? 'groups',
    roleMapping: roleMapping(env),
    postLoginUrl: str(env, 'OIDC_POST_LOGIN_URL') ?? '/',
  };
}

function accounts(env: Env): AccountsEnv {
  const bootstrapOperatorEmail = email(env, 'BOOTSTRAP_OPERATOR_EMAIL');
  const bootstrapOperatorPassword = str(env, 'BOOTSTRAP_OPERATOR_PASSWORD');
  if ((bootstrapOperatorEmail === undefined) !== (bootstrapOperatorPassword === undefined))
    throw new ConfigError('BOOTSTRAP_OPERATOR_EMAIL and BOOTSTRAP_OPERATOR_PASSWORD must be set together');
  if (bootstrapOperatorPassword !== undefined && bootstrapOperatorPassword.length < 12)
    throw new ConfigError('BOOTSTRAP_OPERATOR_PASSWORD must be at least 12 characters');
  const smtpUrl = url(env, 'SMTP_URL', ['smtp:', 'smtps:']);
  const mailFrom = str(env, 'MAIL_FROM');
  if (smtpUrl && !mailFrom) throw new ConfigError('MAIL_FROM must be set when SMTP_URL is set');
  return {
    bootstrapOperatorEmail,
    bootstrapOperatorPassword,
    sessionIdleTimeoutMs: int(env, 'SESSION_IDLE_TIMEOUT_MINUTES', 720, 1, 525_600) * 60_000,
    sessionMaxAgeMs: int(env, 'SESSION_MAX_AGE_HOURS', 168, 1, 8_760) * 3_600_000,
    loginMaxFailuresPerAccount: int(env, 'LOGIN_MAX_FAILURES_PER_ACCOUNT', 10, 1, 1_000_000),
    loginMaxFailuresPerIp: int(env, 'LOGIN_MAX_FAILURES_PER_IP', 50, 1, 1_000_000),
    loginThrottleWindowMs: int(env, 'LOGIN_THROTTLE_WINDOW_MINUTES', 15, 1, 1_440) * 60_000,
    invitationTtlMs: int(env, 'INVITATION_TTL_HOURS', 168, 1, 8_760) * 3_600_000,
    auditRetentionMs: int(env, 'AUDIT_RETENTION_DAYS', 365, 1, 36_500) * 86_400_000,
    smtpUrl,
    mailFrom,
    oidc: oidc(env),
    oidcOnly: bool(env, 'OIDC_ONLY', false),
  };
}

/**
 * OUTBOUND_ALLOW_CIDRS: comma-separated networks (`10.20.0.0/16`, `fd00::/8`, or a single address)
 * that outbound requests may reach although the SSRF policy refuses them (cloud metadata never).
 */
function outboundAllowCidrs(env: Env): AllowedCidr[] {
  const raw = str(env, 'OUTBOUND_ALLOW_CIDRS');
  if (raw === undefined) return [];
  return raw
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)
    .map((entry) => {
      const [address, bits, extra] = entry.split('/');
      const version = isIP(address ?? '');
      const max = version === 6 ? 128 : 32;
      const prefix = bits === undefined ? max : /^\d{1,3}$/.test(bits) ? Number(bits) : NaN;
      if (version === 0 || extra !== undefined || !(prefix >= 0 && prefix <= max))
        throw new ConfigError(`OUTBOUND_ALLOW_CIDRS entries must be CIDRs like 10.0.0.0/8 or fd00::/8, got "${entry}"`);
      return { address, prefix, family: version === 6 ? 'ipv6' : 'ipv4' };
    });
}

function ocr(env: Env): OcrEnv {
  return {
    enabled: bool(env, 'OCR_ENABLED', true),
    maxPages: int(env, 'OCR_MAX_PAGES', 50, 1, 10_000),
    timeoutMs: int(env, 'OCR_TIMEOUT_MS', 120_000, 100, 3_600_000),
    memoryMb: int(env, 'OCR_MEMORY_MB', 1024, 128, 65_536),
    tesseractPath: str(env, 'TESSERACT_PATH'),
    pdftoppmPath: str(env, 'PDFTOPPM_PATH'),
  };
}

function pdfText(env: Env): PdfTextEnv {
  const engine = str(env, 'PDF_TEXT_ENGINE') ?? 'auto';
  if (engine !== 'auto' && engine !== 'pdfjs')
    throw new ConfigError(`PDF_TEXT_ENGINE must be auto or pdfjs, got "${engine}"`);
  return { engine, pdftotextPath: str(env, 'PDFTOTEXT_PATH') };
}

function documents(env: Env): DocumentsEnv {
  const timeZone = str(env, 'DOCUMENTS_TZ') ?? 'Europe/Moscow';
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
  } catch {
    throw new ConfigError(`DOCUMENTS_TZ must be an IANA time zone (e.g. Europe/Moscow), got "${timeZone}"`);
  }
  return { timeZone, actsCloseDays: int(env, 'ACTS_CLOSE_DAYS', 3, 0, 27) };
}

function pricing(env: Env): PricingEnv {
  const off = str(env, 'FX_RATES_URL')?.toLowerCase() === 'off';
  return {
    ratesUrl: off
      ? null
      : (url(env, 'FX_RATES_URL', ['http:', 'https:']) ?? 'https://www.cbr.ru/scripts/XML_daily.asp'),
    staleHours: int(env, 'FX_STALE_HOURS', 48, 1, 24 * 365),
    markupPercent: decimal(env, 'FX_MARKUP_PERCENT', 0, 0),
    checkIntervalMs: int(env, 'FX_CHECK_INTERVAL_MS', 3_600_000, 1000, 3_600_000),
    catalogRefreshMs: int(env, 'CATALOG_REFRESH_MS', 5000, 100, 10_000),
  };
}

function alerts(env: Env): AlertsEnv {
  return {
    evalIntervalMs: int(env, 'ALERTS_EVAL_INTERVAL_MS', 30_000, 100, 3_600_000),
    deliveryMaxAttempts: int(env, 'ALERT_DELIVERY_MAX_ATTEMPTS', 6, 1, 50),
    retryBaseMs: int(env, 'ALERT_RETRY_BASE_MS', 5_000, 10, 3_600_000),
    telegramApiBase: url(env, 'TELEGRAM_API_BASE', ['http:', 'https:']) ?? 'https://api.telegram.org',
  };
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

function requestLog(env: Env): RequestLogEnv {
  return {
    enabled: bool(env, 'REQUEST_LOG_ENABLED', true),
    queueMax: int(env, 'REQUEST_LOG_QUEUE_MAX', 10_000, 1, 10_000_000),
    batchSize: int(env, 'REQUEST_LOG_BATCH_SIZE', 200, 1, 10_000),
    flushMs: int(env, 'REQUEST_LOG_FLUSH_MS', 1_000, 10, 600_000),
    bodyMaxBytes: int(env, 'REQUEST_LOG_BODY_MAX_KB', 32, 1, 10_240) * 1024,
    retentionDays: int(env, 'REQUEST_LOG_RETENTION_DAYS', 30, 1, 3_650),
    bodyRetentionDays: int(env, 'REQUEST_LOG_BODY_RETENTION_DAYS', 7, 1, 3_650),
    retentionIntervalMs: int(env, 'REQUEST_LOG_RETENTION_INTERVAL_MS', 600_000, 100, 86_400_000),
    deleteBatch: int(env, 'REQUEST_LOG_DELETE_BATCH', 1_000, 1, 100_000),
  };
}

/** A list of comma-separated key=value pairs (values URL-encoded, as the OTel specification says). */
function keyValueList(env: Env, name: string): Record<string, string> {
  const raw = str(env, name);
  if (raw === undefined) return {};
  const out: Record<string, string> = {};
  for (const part of raw.split(',')) {
    const i = part.indexOf('=');
    const key = part.slice(0, i).trim();
    if (i <= 0 || !/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(key))
      throw new ConfigError(`${name} must be comma-separated key=value pairs`);
    out[key] = decodeURIComponent(part.slice(i + 1).trim());
  }
  return out;
}

function otlpProtocol(env: Env): OtlpProtocol {
  for (const name of ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'OTEL_EXPORTER_OTLP_PROTOCOL']) {
    const raw = str(env, name);
    if (raw === undefined) continue;
    if (!(OTLP_PROTOCOLS as readonly string[]).includes(raw))
      throw new ConfigError(`${name} must be one of ${OTLP_PROTOCOLS.join(', ')}, got "${raw}"`);
    return raw as OtlpProtocol;
  }
  return 'http/protobuf';
}

/** The traces endpoint: the signal-specific variable is used as given; the general one gets the signal's path. */
function otlpTracesEndpoint(env: Env, protocol: OtlpProtocol): string | undefined {
  const traces = url(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', ['http:', 'https:']);
  if (traces !== undefined) return traces;
  const base = url(env, 'OTEL_EXPORTER_OTLP_ENDPOINT', ['http:', 'https:']);
  if (base === undefined) return undefined;
  return protocol === 'grpc' ? base : `${base}/v1/traces`;
}

function otel(env: Env): OtelEnv {
  const protocol = otlpProtocol(env);
  const compression = str(env, 'OTEL_EXPORTER_OTLP_TRACES_COMPRESSION') ?? str(env, 'OTEL_EXPORTER_OTLP_COMPRESSION');
  if (compression !== undefined && compression !== 'gzip' && compression !== 'none')
    throw new ConfigError(`OTEL_EXPORTER_OTLP_COMPRESSION must be gzip or none, got "${compression}"`);
  const resourceAttributes = keyValueList(env, 'OTEL_RESOURCE_ATTRIBUTES');
  return {
    endpoint: str(env, 'OTEL_SDK_DISABLED') === 'true' ? undefined : otlpTracesEndpoint(env, protocol),
    protocol,
    headers: {
      ...keyValueList(env, 'OTEL_EXPORTER_OTLP_HEADERS'),
      ...keyValueList(env, 'OTEL_EXPORTER_OTLP_TRACES_HEADERS'),
    },
    compression: compression ?? 'none',
    serviceName: str(env, 'OTEL_SERVICE_NAME') ?? resourceAttributes['service.name'] ?? 'model-gateway',
    resourceAttributes,
    scheduleDelayMs: int(env, 'OTEL_BSP_SCHEDULE_DELAY', 5_000, 10, 600_000),
    maxExportBatchSize: int(env, 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE', 512, 1, 100_000),
    maxQueueSize: int(env, 'OTEL_BSP_MAX_QUEUE_SIZE', 2_048, 1, 1_000_000),
    exportTimeoutMs: int(
      env,
      'OTEL_EXPORTER_OTLP_TRACES_TIMEOUT',
      int(env, 'OTEL_EXPORTER_OTLP_TIMEOUT', 10_000, 100, 600_000),
      100,
      600_000,
    ),
  };
}
