import type { components } from '../../api/schema';
import { parseAmount } from '../models/catalog-form';

export type TeamPricing = components['schemas']['TeamPricingDto'];
export type OwnPrices = components['schemas']['TeamModelPricesDto'];
export type PutTeamPricing = components['schemas']['PutTeamPricingDto'];

/** A team's own price fields for one model, in the order the table and the form show them. */
export const OWN_FIELDS = [
  'input_per_1m_rub',
  'output_per_1m_rub',
  'cache_read_per_1m_rub',
  'cache_write_per_1m_rub',
  'cache_write_1h_per_1m_rub',
  'image_rub',
  'request_rub',
] as const;
export type OwnField = (typeof OWN_FIELDS)[number];

/** The fields the form offers for a kind of model (a field set some other way stays kept and shown). */
export function ownFieldsOf(kind: string | undefined, own: OwnPrices = {}): OwnField[] {
  const offered: OwnField[] =
    kind === 'embedding'
      ? ['input_per_1m_rub', 'request_rub']
      : kind === 'image'
        ? ['input_per_1m_rub', 'output_per_1m_rub', 'request_rub']
        : [...OWN_FIELDS];
  return OWN_FIELDS.filter((f) => offered.includes(f) || (own[f] !== undefined && own[f] !== null));
}

/** One model's own prices as typed ('' = the catalog's). */
export type OwnForm = Record<OwnField, string>;

/** A number as the form shows it: a decimal comma in Russian (either is accepted back). */
export function typed(v: number | null | undefined, lang: string): string {
  if (v === null || v === undefined) return '';
  return lang === 'ru' ? String(v).replace('.', ',') : String(v);
}

export function ownFormOf(own: OwnPrices | undefined, lang: string): OwnForm {
  return Object.fromEntries(OWN_FIELDS.map((f) => [f, typed(own?.[f], lang)])) as OwnForm;
}

/** The form's own prices as the PUT takes them: empty fields left out (the catalog's price). */
export function ownPricesOf(form: OwnForm): OwnPrices {
  const out: OwnPrices = {};
  for (const f of OWN_FIELDS) {
    const v = parseAmount(form[f]);
    if (v !== null) out[f] = v;
  }
  return out;
}

export type FieldErrors = Record<string, string>;

/** The form's own checks (error keys of `teamPrices.errors`), by the server's names of the fields. */
export function checkOwn(model: string | null, form: OwnForm): FieldErrors {
  const errors: FieldErrors = {};
  if (!model) errors.model = 'model';
  for (const f of OWN_FIELDS) {
    const v = parseAmount(form[f]);
    if (v === null) continue;
    if (Number.isNaN(v)) errors[`models.${model}.${f}`] = 'number';
    else if (v < 0) errors[`models.${model}.${f}`] = 'negative';
  }
  return errors;
}

/** A percentage as typed: empty is 0. */
export function percentOf(v: string): number {
  return parseAmount(v) ?? 0;
}

/**
 * The PUT body: a PUT replaces the team's prices whole, so the markup, the discount and every
 * model's own prices are sent each time; `models` as they should be after the change.
 */
export function pricingBody(
  current: Pick<TeamPricing, 'markup_percent' | 'discount_percent'>,
  models: Record<string, OwnPrices>,
): PutTeamPricing {
  return {
    markup_percent: current.markup_percent,
    discount_percent: current.discount_percent,
    models,
  };
}

/** The team's own prices with one model's set (or, with `null`, removed). */
export function withModel(
  models: Record<string, OwnPrices>,
  key: string,
  prices: OwnPrices | null,
): Record<string, OwnPrices> {
  const next = { ...models };
  if (prices === null) delete next[key];
  else next[key] = prices;
  return next;
}

/** A check of the form before anything is sent: the dialog keeps it as its error and marks the fields. */
export class FormCheckError extends Error {
  constructor(readonly fields: FieldErrors) {
    super('form check');
  }
}
