import { bool, ConfigError, Env, int, str, url } from './readers';

/** Observability: log level, alerts, the team request log and OpenTelemetry trace export. */

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Alert evaluation and delivery. */
export interface AlertsEnv {
  /** every replica evaluates every enabled rule this often (charges also trigger an evaluation of their team) */
  evalIntervalMs: number;
  /** attempts per delivery (the first included) before it is marked failed */
  deliveryMaxAttempts: number;
  /** first retry delay; each further retry waits twice as long (at most 10 minutes) */
  retryBaseMs: number;
  telegramApiBase: string;
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

export function alerts(env: Env): AlertsEnv {
  return {
    evalIntervalMs: int(env, 'ALERTS_EVAL_INTERVAL_MS', 30_000, 100, 3_600_000),
    deliveryMaxAttempts: int(env, 'ALERT_DELIVERY_MAX_ATTEMPTS', 6, 1, 50),
    retryBaseMs: int(env, 'ALERT_RETRY_BASE_MS', 5_000, 10, 3_600_000),
    telegramApiBase: url(env, 'TELEGRAM_API_BASE', ['http:', 'https:']) ?? 'https://api.telegram.org',
  };
}

export function requestLog(env: Env): RequestLogEnv {
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
export function keyValueList(env: Env, name: string): Record<string, string> {
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

export function otlpProtocol(env: Env): OtlpProtocol {
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
export function otlpTracesEndpoint(env: Env, protocol: OtlpProtocol): string | undefined {
  const traces = url(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', ['http:', 'https:']);
  if (traces !== undefined) return traces;
  const base = url(env, 'OTEL_EXPORTER_OTLP_ENDPOINT', ['http:', 'https:']);
  if (base === undefined) return undefined;
  return protocol === 'grpc' ? base : `${base}/v1/traces`;
}

export function otel(env: Env): OtelEnv {
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
