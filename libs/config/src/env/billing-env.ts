import type { ProviderEnvDeclaration } from './providers-env';
import { bool, ConfigError, decimal, Env, int, str, url } from './readers';

/** Billing: charge durability and hold lifetime, documents (invoices, acts), FX rates and catalog prices. */

export const BILLING_DURABILITIES = ['durable', 'batched'] as const;
export type BillingDurability = (typeof BILLING_DURABILITIES)[number];

/** BILLING_DURABILITY: batched charges come out of credit grants, so it needs them. */
export function billingDurability(env: Env): BillingDurability {
  const raw = (str(env, 'BILLING_DURABILITY') ?? 'durable').toLowerCase();
  if (!(BILLING_DURABILITIES as readonly string[]).includes(raw))
    throw new ConfigError(`BILLING_DURABILITY must be one of ${BILLING_DURABILITIES.join(', ')}, got "${raw}"`);
  if (raw === 'batched' && !bool(env, 'BILLING_CREDIT_GRANTS', true))
    throw new ConfigError('BILLING_DURABILITY=batched needs credit grants: leave BILLING_CREDIT_GRANTS on');
  return raw as BillingDurability;
}

/**
 * A hold must outlive the longest request: the slowest provider's timeout plus the shutdown grace
 * (a request may be finishing while the replica drains), plus 30 s of margin.
 */
export function defaultReservationTtlSeconds(
  env: Env,
  providers: readonly ProviderEnvDeclaration[],
  providerTimeoutMs: number,
): number {
  const timeouts = providers.map((d) => int(env, `${d.env.prefix}_TIMEOUT_MS`, providerTimeoutMs, 100, 3_600_000));
  const grace = int(env, 'SHUTDOWN_GRACE_MS', 25_000, 0, 600_000);
  return Math.ceil((Math.max(providerTimeoutMs, ...timeouts) + grace) / 1000) + 30;
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

export function documents(env: Env): DocumentsEnv {
  const timeZone = str(env, 'DOCUMENTS_TZ') ?? 'Europe/Moscow';
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
  } catch {
    throw new ConfigError(`DOCUMENTS_TZ must be an IANA time zone (e.g. Europe/Moscow), got "${timeZone}"`);
  }
  return { timeZone, actsCloseDays: int(env, 'ACTS_CLOSE_DAYS', 3, 0, 27) };
}

export function pricing(env: Env): PricingEnv {
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
