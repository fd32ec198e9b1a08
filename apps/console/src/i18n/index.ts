import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';
import { en } from './en';
import { ru } from './ru';

export const LANG_KEY = 'console.lang';
export const LANGUAGES = ['en', 'ru'] as const;
export type Lang = (typeof LANGUAGES)[number];

function initialLanguage(): Lang {
  const saved = typeof localStorage !== 'undefined' ? localStorage.getItem(LANG_KEY) : null;
  if (saved === 'en' || saved === 'ru') return saved;
  const nav = typeof navigator !== 'undefined' ? navigator.language : 'en';
  return nav.toLowerCase().startsWith('ru') ? 'ru' : 'en';
}

void i18n.use(initReactI18next).init({
  resources: { en: { translation: en }, ru: { translation: ru } },
  lng: initialLanguage(),
  fallbackLng: 'en',
  interpolation: { escapeValue: false },
  showSupportNotice: false,
});

i18n.on('languageChanged', (lng) => {
  localStorage.setItem(LANG_KEY, lng);
  document.documentElement.lang = lng;
});
document.documentElement.lang = i18n.language;

export default i18n;

/** Pseudo-endpoints of work the gateway does itself, said in the interface language. */
const ENDPOINT_NAMES: Record<string, string> = { 'knowledge-base ingestion': 'requests.endpointIngestion' };

/** A logged request's endpoint: its path as it is, or the name of the gateway's own work. */
export function endpointLabel(endpoint: string | null | undefined): string {
  if (!endpoint) return '—';
  const key = ENDPOINT_NAMES[endpoint];
  return key ? i18n.t(key) : endpoint;
}

/** The locale numbers and amounts are written in for an interface language. */
const numberLocale = (lang: string): string => (lang === 'ru' ? 'ru-RU' : 'en-US');

/**
 * RUB amounts per locale: "1 234,56 ₽" in Russian, "RUB 1,234.56" in English. Below one rouble up
 * to six decimals (the API's µRUB precision) are kept, so a day's spend of 0.0138 is not shown as
 * 0.01 beside a key's 0.001584 (docs/decisions/console-rub-precision.md).
 */
export function formatRub(value: number | null | undefined, lang = i18n.language, digits?: number): string {
  if (value === null || value === undefined || Number.isNaN(value)) return '—';
  const small = Math.abs(value) > 0 && Math.abs(value) < 1;
  return new Intl.NumberFormat(numberLocale(lang), {
    style: 'currency',
    currency: 'RUB',
    minimumFractionDigits: 2,
    maximumFractionDigits: digits ?? (small ? 6 : 2),
  }).format(value);
}

/**
 * RUB on a chart's value axis: up to four significant digits and no forced decimals, so ticks a
 * fraction of a kopeck apart stay distinct ("0,0105 ₽" and "0,014 ₽", not "0,01 ₽" twice) and round
 * ticks stay short ("1 500 ₽").
 */
export function formatRubAxis(value: number, lang = i18n.language): string {
  return new Intl.NumberFormat(numberLocale(lang), {
    style: 'currency',
    currency: 'RUB',
    minimumFractionDigits: 0,
    maximumSignificantDigits: 4,
  }).format(value);
}

export function formatNumber(value: number | null | undefined, lang = i18n.language): string {
  if (value === null || value === undefined) return '—';
  return new Intl.NumberFormat(numberLocale(lang)).format(value);
}

/** Dates from the API: ISO strings, or Unix seconds (the OpenAI-style objects). */
export function formatDate(value: string | number | null | undefined, lang = i18n.language): string {
  if (value === null || value === undefined || value === '') return '—';
  return new Intl.DateTimeFormat(lang === 'ru' ? 'ru-RU' : 'en-GB', { dateStyle: 'medium', timeStyle: 'short' }).format(
    new Date(typeof value === 'number' ? value * 1000 : value),
  );
}
