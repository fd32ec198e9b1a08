import type { TFunction } from 'i18next';
import { ApiRequestError } from '../../api/client';

/** The server's validation problems (English) and the dictionary key each is shown with. */
const PROBLEMS: [RegExp, string][] = [
  [/must be 10 or 12 digits/, 'digits10or12'],
  [/check digits? do(es)? not match/, 'checkDigit'],
  [/must be 9 characters/, 'kppFormat'],
  [/is required for a company/, 'kppRequired'],
  [/must be 13 \(ОГРН\) or 15/, 'ogrnDigits'],
  [/must be an ОГРН/, 'ogrnKind'],
  [/must be 9 digits/, 'digits9'],
  [/must be 20 digits/, 'digits20'],
  [/cannot be checked without a valid BIK/, 'needBik'],
  [/control key does not match/, 'key'],
  [/must start with 301/, 'start301'],
  [/must be an email/, 'email'],
  [/should not be empty|must be longer than or equal to 1/, 'required'],
];

/** A field's problem in the interface language (the server's own text kept for a tooltip). */
export interface FieldProblem {
  field: string;
  text: string;
  server: string;
}

/** The field an API error names, with its problem translated; null when it names none. */
export function fieldProblem(error: unknown, t: TFunction): FieldProblem | null {
  if (!(error instanceof ApiRequestError) || !error.param || error.status !== 400) return null;
  const found = PROBLEMS.find(([re]) => re.test(error.message));
  const text = found ? t(`documents.errors.problems.${found[1] as 'required'}`) : t('documents.errors.invalid');
  return { field: error.param, text, server: error.message };
}

/** An API error's message in the interface language where its code is known, else the server's. */
export function documentErrorText(error: unknown, t: TFunction): string {
  if (error instanceof ApiRequestError && error.code) {
    const key = `documents.errors.${error.code}`;
    const text = t(key as 'documents.errors.invalid');
    if (text !== key) return text;
  }
  return error instanceof Error ? error.message : String(error);
}
