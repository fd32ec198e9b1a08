import type { AlertKind, AlertLanguage } from './alert-rules';

/**
 * What delivered alert messages say, in English and Russian: the e-mail subject, the text of an
 * e-mail or Telegram message, and a webhook's `message`. The English sentences are also the event's
 * stored `message`. Russian numbers are written the Russian way (`1 234,50 ₽`, `80,5 %`).
 * See docs/decisions/alert-event-language.md.
 */

/** The observation of an event as its payload stores it (the fields of the event API's `details`). */
export interface AlertFacts {
  value: number;
  message: string;
  test?: boolean;
  unit?: 'RUB' | 'percent';
  billing_url?: string;
  spent_rub?: number;
  budget_rub?: number;
  api_key_id?: string | null;
  period?: 'day' | 'month';
  errors?: number;
  requests?: number;
  window_minutes?: number;
}

export interface BalanceFacts {
  value: number;
  threshold: number;
  billingUrl: string;
}
export interface BudgetFacts {
  percent: number;
  period: 'day' | 'month';
  apiKeyId: string | null;
  spentRub: number;
  budgetRub: number;
  value: number;
}
export interface ErrorRateFacts {
  value: number;
  errors: number;
  requests: number;
  windowMinutes: number;
  percent: number;
}

/** An event as the texts need it. */
export interface EventForText {
  kind: string;
  threshold: number;
  teamId: string;
  ruleId: string;
  firedAt: number;
  facts: AlertFacts;
}

interface Texts {
  kind(kind: string): string;
  subject(kind: string, test: boolean): string;
  balance(f: BalanceFacts): string;
  budget(f: BudgetFacts): string;
  errorRate(f: ErrorRateFacts): string;
  test(kind: string, ruleId: string): string;
  footer(teamId: string, ruleId: string, firedAt: number): string;
}

const EN: Texts = {
  kind: (kind) => kind.replace('_', ' '),
  subject: (kind, test) => `Gateway alert${test ? ' (test)' : ''}: ${EN.kind(kind)}`,
  balance: (f) => `Balance ${f.value} RUB is below ${f.threshold} RUB. Top up on the Billing page: ${f.billingUrl}`,
  budget: (f) =>
    `Spend of ${f.apiKeyId ? `key ${f.apiKeyId}` : 'the team'} reached ${f.percent}% of its ${f.period === 'day' ? 'daily' : 'monthly'} budget: ${f.spentRub} of ${f.budgetRub} RUB (${f.value}%).`,
  errorRate: (f) =>
    `Error rate ${f.value}% (${f.errors} of ${f.requests} requests in the last ${f.windowMinutes} minutes) is over ${f.percent}%.`,
  test: (kind, ruleId) => `Test of the ${EN.kind(kind)} alert rule ${ruleId}: its channels are reachable.`,
  footer: (teamId, ruleId, firedAt) => `Team ${teamId}, rule ${ruleId}, ${new Date(firedAt).toISOString()}.`,
};

const RU_KINDS: Record<AlertKind, string> = {
  balance_below: 'баланс ниже порога',
  budget_used: 'израсходован бюджет',
  error_rate: 'доля ошибок выше порога',
};
const ruPlural = new Intl.PluralRules('ru-RU');
const ruInteger = new Intl.NumberFormat('ru-RU', { maximumFractionDigits: 0 });
const ruDecimal = new Intl.NumberFormat('ru-RU', { maximumFractionDigits: 2 });
const ruRub = new Intl.NumberFormat('ru-RU', {
  style: 'currency',
  currency: 'RUB',
  minimumFractionDigits: 2,
  maximumFractionDigits: 6,
});
const ruDate = new Intl.DateTimeFormat('ru-RU', { dateStyle: 'long', timeStyle: 'medium', timeZone: 'UTC' });
/** `1 234,50 ₽` (amounts are kept to the micro-rouble: up to six decimals) */
const rub = (v: number) => ruRub.format(v);
/** `80,5 %` */
const pct = (v: number) => `${ruDecimal.format(v)}\u00a0%`;
/** "из 21 запроса", "из 10 запросов" */
const ofRequests = (n: number) => `${ruInteger.format(n)} ${ruPlural.select(n) === 'one' ? 'запроса' : 'запросов'}`;
/** "за последнюю минуту", "за последние 2 минуты", "за последние 5 минут", "за последние 21 минуту" */
function inLastMinutes(n: number): string {
  if (n === 1) return 'за последнюю минуту';
  const form = ruPlural.select(n);
  return `за последние ${ruInteger.format(n)} ${form === 'one' ? 'минуту' : form === 'few' ? 'минуты' : 'минут'}`;
}

const RU: Texts = {
  kind: (kind) => RU_KINDS[kind as AlertKind] ?? kind,
  subject: (kind, test) => `Оповещение шлюза${test ? ' (тест)' : ''}: ${RU.kind(kind)}`,
  balance: (f) =>
    `Баланс ${rub(f.value)} ниже порога ${rub(f.threshold)}. Пополнить баланс можно на странице «Оплата»: ${f.billingUrl}`,
  budget: (f) =>
    `Расход ${f.apiKeyId ? `ключа ${f.apiKeyId}` : 'команды'} достиг ${pct(f.percent)} ${f.period === 'day' ? 'дневного' : 'месячного'} бюджета: ${rub(f.spentRub)} из ${rub(f.budgetRub)} (${pct(f.value)}).`,
  errorRate: (f) =>
    `Доля ошибок ${pct(f.value)} (${ruInteger.format(f.errors)} из ${ofRequests(f.requests)} ${inLastMinutes(f.windowMinutes)}) выше порога ${pct(f.percent)}.`,
  test: (kind, ruleId) => `Тест правила оповещения «${RU.kind(kind)}» ${ruleId}: его каналы доступны.`,
  footer: (teamId, ruleId, firedAt) => `Команда ${teamId}, правило ${ruleId}, ${ruDate.format(firedAt)} UTC.`,
};

const TEXTS: Record<AlertLanguage, Texts> = { en: EN, ru: RU };

/** The texts of one language (the English ones also make the stored `message`). */
export function alertTexts(language: AlertLanguage): Texts {
  return TEXTS[language];
}

/**
 * The event's message in `language`: made from its stored facts; the stored (English) message
 * when the facts a sentence needs are missing.
 */
export function eventMessage(language: AlertLanguage, e: EventForText): string {
  const t = TEXTS[language];
  const f = e.facts;
  if (f.test === true) return t.test(e.kind, e.ruleId);
  if (language === 'en' || !f.unit) return f.message;
  if (e.kind === 'balance_below' && f.billing_url !== undefined)
    return t.balance({ value: f.value, threshold: e.threshold, billingUrl: f.billing_url });
  if (e.kind === 'budget_used' && f.spent_rub !== undefined && f.budget_rub !== undefined && f.period)
    return t.budget({
      percent: e.threshold,
      period: f.period,
      apiKeyId: f.api_key_id ?? null,
      spentRub: f.spent_rub,
      budgetRub: f.budget_rub,
      value: f.value,
    });
  if (e.kind === 'error_rate' && f.errors !== undefined && f.requests !== undefined && f.window_minutes !== undefined)
    return t.errorRate({
      value: f.value,
      errors: f.errors,
      requests: f.requests,
      windowMinutes: f.window_minutes,
      percent: e.threshold,
    });
  return f.message;
}

/** The subject and text of a delivered message (e-mail, Telegram) and the message it carries (webhook). */
export function deliveredTexts(
  language: AlertLanguage,
  e: EventForText,
): { subject: string; text: string; message: string } {
  const t = TEXTS[language];
  const message = eventMessage(language, e);
  return {
    subject: t.subject(e.kind, e.facts.test === true),
    text: `${message}\n\n${t.footer(e.teamId, e.ruleId, e.firedAt)}`,
    message,
  };
}
