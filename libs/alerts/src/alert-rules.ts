import { randomBytes } from 'node:crypto';

/**
 * The pure part of alerts: rule parameters, the period keys that deduplicate events, and the
 * decisions "which thresholds does this observation reach". No I/O here.
 */

export const ALERT_KINDS = ['balance_below', 'budget_used', 'error_rate'] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];
export const CHANNEL_TYPES = ['webhook', 'email', 'telegram'] as const;
export type ChannelType = (typeof CHANNEL_TYPES)[number];
/** The languages a channel's messages are written in (docs/decisions/alert-event-language.md). */
export const ALERT_LANGUAGES = ['en', 'ru'] as const;
export type AlertLanguage = (typeof ALERT_LANGUAGES)[number];
export const DEFAULT_BUDGET_PERCENTS = [50, 80, 100];
/** requests in the window below which an error rate is not judged (one failed request of one is not a trend) */
export const DEFAULT_ERROR_RATE_MIN_REQUESTS = 10;

export interface BalanceParams {
  kind: 'balance_below';
  thresholdMicro: number;
}
export interface BudgetParams {
  kind: 'budget_used';
  apiKeyId: string | null;
  period: 'day' | 'month';
  percents: number[];
  /** the budget the percentages are of; null = the key's own budget for the period */
  budgetMicro: number | null;
}
export interface ErrorRateParams {
  kind: 'error_rate';
  percent: number;
  windowMinutes: number;
  minRequests: number;
}
export type RuleParams = BalanceParams | BudgetParams | ErrorRateParams;

/**
 * A channel as stored: secrets sealed, and the language its messages are written in (absent on
 * channels stored before channels had one: English).
 */
export type StoredChannel = { language?: AlertLanguage } & (
  | { type: 'webhook'; url: string; secret: string }
  | { type: 'email'; to: string[] }
  | { type: 'telegram'; chat_id: string; bot_token: string; bot_token_hint: string }
);

/** The language of a stored channel's messages (English for none). */
export function channelLanguage(c: { language?: AlertLanguage } | undefined): AlertLanguage {
  return c?.language === 'ru' ? 'ru' : 'en';
}

/** A Telegram bot token as BotFather issues it: the bot id, a colon, the secret (no `/`, `?`, `#`, `.`). */
export const TELEGRAM_BOT_TOKEN = /^\d+:[A-Za-z0-9_-]+$/;

/** Ids: `alr_` rules, `ale_` events, `ald_` deliveries, `ala_` attempts, then 24 hex digits. */
export function newAlertId(prefix: 'alr' | 'ale' | 'ald' | 'ala'): string {
  return `${prefix}_${randomBytes(12).toString('hex')}`;
}

/** The key of the budget period containing `now` (UTC): `d:YYYY-MM-DD` or `m:YYYY-MM`. */
export function budgetPeriodKey(period: 'day' | 'month', now: number): string {
  const iso = new Date(now).toISOString();
  return period === 'day' ? `d:${iso.slice(0, 10)}` : `m:${iso.slice(0, 7)}`;
}

/** The key of a balance / error-rate event: the crossing it belongs to (re-armed when the value recovers). */
export function crossingKey(crossing: number): string {
  return `c:${crossing}`;
}

/** The percentages of `percents` that `spentMicro` reached of `budgetMicro` (none for a budget of 0 or less). */
export function reachedPercents(spentMicro: number, budgetMicro: number, percents: readonly number[]): number[] {
  if (budgetMicro <= 0) return [];
  return percents.filter((p) => spentMicro * 100 >= p * budgetMicro);
}

/** True when the errors of the window make a rate over `percent` (and enough requests were made to judge). */
export function errorRateOver(
  errors: number,
  total: number,
  params: Pick<ErrorRateParams, 'percent' | 'minRequests'>,
): boolean {
  return total > 0 && total >= params.minRequests && errors * 100 > params.percent * total;
}

/** Retry delay before attempt `attempt + 1` (attempt counted from 1): base × 2^(attempt−1), at most 10 minutes. */
export function retryDelayMs(attempt: number, baseMs: number): number {
  return Math.min(600_000, baseMs * 2 ** Math.max(0, attempt - 1));
}

/** `1234567:AAE…` → `1234…wxyz`: enough to recognise a bot token, never enough to use it. */
export function maskToken(token: string): string {
  return token.length <= 8 ? '…' : `${token.slice(0, 4)}…${token.slice(-4)}`;
}
