import { Injectable } from '@nestjs/common';
import {
  AccountsEnv,
  AlertsEnv,
  OcrEnv,
  PdfTextEnv,
  DocumentsEnv,
  PricingEnv,
  AllowedCidr,
  EnvConfig,
  LogLevel,
  OtelEnv,
  parseEnv,
  ProviderEnv,
  ProviderEnvDeclaration,
  RequestLogEnv,
  McpEnv,
  ResilienceEnv,
} from './env.schema';
import type { PaymentsEnv } from './payments-env';

/** Typed, validated configuration. Built once at boot from the environment (or from overrides in tests). */
@Injectable()
export class AppConfig {
  constructor(private readonly env: EnvConfig) {}

  /** The configuration without provider settings (for code that reaches no provider). */
  static fromEnv(env: Record<string, string | undefined> = process.env): AppConfig {
    return new AppConfig(parseEnv(env));
  }

  /** The whole configuration: the service's variables and those of every provider in `providers`. */
  static load(
    providers: readonly ProviderEnvDeclaration[],
    env: Record<string, string | undefined> = process.env,
  ): AppConfig {
    return new AppConfig(parseEnv(env, providers));
  }

  get port(): number {
    return this.env.port;
  }
  get host(): string {
    return this.env.host;
  }
  /** 'postgres' when DATABASE_URL is set, otherwise the embedded SQLite database. */
  get databaseKind(): 'postgres' | 'sqlite' {
    return this.env.databaseUrl ? 'postgres' : 'sqlite';
  }
  get databaseUrl(): string | undefined {
    return this.env.databaseUrl;
  }
  get databaseSchema(): string | undefined {
    return this.env.databaseSchema;
  }
  get databasePoolSize(): number {
    return this.env.databasePoolSize;
  }
  get dataDir(): string {
    return this.env.dataDir;
  }
  get redisUrl(): string | undefined {
    return this.env.redisUrl;
  }
  get redisKeyPrefix(): string {
    return this.env.redisKeyPrefix;
  }
  get adminToken(): string | undefined {
    return this.env.adminToken;
  }
  /** Bearer token for GET /metrics; unset = open */
  get metricsToken(): string | undefined {
    return this.env.metricsToken;
  }
  get bootstrapApiKey(): string | undefined {
    return this.env.bootstrapApiKey;
  }
  get bootstrapBalanceRub(): number {
    return this.env.bootstrapBalanceRub;
  }
  get logLevel(): LogLevel {
    return this.env.logLevel;
  }
  get bodyLimitBytes(): number {
    return this.env.bodyLimitMb * 1024 * 1024;
  }
  get billingCreditGrants(): boolean {
    return this.env.billingCreditGrants;
  }
  get billingDurability(): 'durable' | 'batched' {
    return this.env.billingDurability;
  }
  get billingFlushMs(): number {
    return this.env.billingFlushMs;
  }
  get creditGrantTtlMs(): number {
    return this.env.creditGrantTtlSeconds * 1000;
  }
  get reservationTtlMs(): number {
    return this.env.reservationTtlSeconds * 1000;
  }
  get authFailureLimit(): number {
    return this.env.authFailureLimit;
  }
  get authFailureWindowMs(): number {
    return this.env.authFailureWindowSeconds * 1000;
  }
  /** Express's `trust proxy` value (undefined: the socket address is the client's) */
  get trustProxy(): boolean | number | string | undefined {
    return this.env.trustProxy;
  }
  get authCacheTtlMs(): number {
    return this.env.authCacheTtlSeconds * 1000;
  }
  get shutdownGraceMs(): number {
    return this.env.shutdownGraceMs;
  }
  get modelsFile(): string | undefined {
    return this.env.modelsFile;
  }
  /** MODEL_ALIASES: requested model name → catalog key */
  get modelAliases(): Readonly<Record<string, string>> {
    return this.env.modelAliases;
  }
  get rerankCacheTtlMs(): number {
    return this.env.rerankCacheTtlSeconds * 1000;
  }
  get rerankNearCacheBytes(): number {
    return this.env.rerankNearCacheMb * 1024 * 1024;
  }
  get publicBaseUrl(): string | undefined {
    return this.env.publicBaseUrl;
  }
  get imageUrlSecret(): string | undefined {
    return this.env.imageUrlSecret;
  }
  get imageUrlTtlMs(): number {
    return this.env.imageUrlTtlSeconds * 1000;
  }
  get ingestConcurrency(): number {
    return this.env.ingestConcurrency;
  }
  get ingestPollMs(): number {
    return this.env.ingestPollMs;
  }
  /** Worker threads that parse untrusted documents (PDF, DOCX, HTML, CSV, JSON, chat exports) */
  get parserWorkers(): number {
    return this.env.parserWorkers;
  }
  /** V8 heap limit of one parser worker */
  get parserMemoryMb(): number {
    return this.env.parserMemoryMb;
  }
  /** Wall time one document's parsing may take before its worker is stopped */
  get parserTimeoutMs(): number {
    return this.env.parserTimeoutMs;
  }
  get kbVectorCacheBytes(): number {
    return this.env.kbVectorCacheMb * 1024 * 1024;
  }
  get memoryCacheBytes(): number {
    return this.env.memoryCacheMb * 1024 * 1024;
  }
  get devWorkspace(): boolean {
    return this.env.devWorkspace;
  }
  get integrationSecretKey(): string | undefined {
    return this.env.integrationSecretKey;
  }
  get integrationPollMs(): number {
    return this.env.integrationPollMs;
  }
  /** Credentials and endpoint of a provider that has env vars (throws for any other name: a programming error). */
  provider(name: string): ProviderEnv {
    const p = Object.prototype.hasOwnProperty.call(this.env.providers, name) ? this.env.providers[name] : undefined;
    if (!p) throw new Error(`No environment settings for provider "${name}"`);
    return p;
  }
  get providerNames(): string[] {
    return Object.keys(this.env.providers);
  }
  get defaultKeyRpmLimit(): number | undefined {
    return this.env.defaultKeyRpmLimit;
  }
  get defaultKeyTpmLimit(): number | undefined {
    return this.env.defaultKeyTpmLimit;
  }
  get defaultTeamRpmLimit(): number | undefined {
    return this.env.defaultTeamRpmLimit;
  }
  get defaultTeamTpmLimit(): number | undefined {
    return this.env.defaultTeamTpmLimit;
  }
  /** users, sessions, sign-in throttling, invitations, audit log */
  get accounts(): AccountsEnv {
    return this.env.accounts;
  }
  /** OUTBOUND_ALLOW_CIDRS: networks the SSRF guard lets outbound requests reach */
  get outboundAllowCidrs(): readonly AllowedCidr[] {
    return this.env.outboundAllowCidrs;
  }
  get alerts(): AlertsEnv {
    return this.env.alerts;
  }
  /** YooKassa top-ups (payments.yookassa undefined: payments disabled) */
  get payments(): PaymentsEnv {
    return this.env.payments;
  }
  /** OCR of PDFs without a text layer during ingestion */
  get ocr(): OcrEnv {
    return this.env.ocr;
  }

  /** the CBR rate of USD prices, and how often catalog and team price changes are polled */
  get fx(): PricingEnv {
    return this.env.fx;
  }

  /** invoices and acts: their time zone and when a month's act becomes final */
  get documents(): DocumentsEnv {
    return this.env.documents;
  }

  get pdfText(): PdfTextEnv {
    return this.env.pdfText;
  }
  /** the MCP gateway: how long a registered server may take to answer one request */
  get mcp(): McpEnv {
    return this.env.mcp;
  }
  /** the team request log: queue, body cap, default retention */
  get requestLog(): RequestLogEnv {
    return this.env.requestLog;
  }
  /** OpenTelemetry trace export (off while OTEL_EXPORTER_OTLP_ENDPOINT is unset) */
  get otel(): OtelEnv {
    return this.env.otel;
  }
  get resilience(): ResilienceEnv {
    return this.env.resilience;
  }
  /** A variable named by the model catalog (deployments' api_key_env / base_url_env); undefined when unset or empty. */
  catalogVariable(name: string): string | undefined {
    return this.env.catalogVariables[name];
  }
}
