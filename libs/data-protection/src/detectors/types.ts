/** The kinds of personal data the detectors find. `address` is off unless asked for; `custom` comes from policy patterns. */
export type PiiEntityType =
  | 'email'
  | 'phone'
  | 'card'
  | 'inn'
  | 'snils'
  | 'passport'
  | 'ogrn'
  | 'bank_account'
  | 'ip'
  | 'person'
  | 'address'
  | 'custom';

/** One detected value: `text.slice(start, end) === value`. `name` is the custom pattern's name. */
export interface PiiMatch {
  type: PiiEntityType;
  start: number;
  end: number;
  value: string;
  name?: string;
}

export const ALL_ENTITY_TYPES: readonly PiiEntityType[] = [
  'email',
  'phone',
  'card',
  'inn',
  'snils',
  'passport',
  'ogrn',
  'bank_account',
  'ip',
  'person',
  'address',
  'custom',
];

/** What `detectPii` looks for when the caller names no entities: everything except addresses. */
export const DEFAULT_ENTITY_TYPES: readonly PiiEntityType[] = ALL_ENTITY_TYPES.filter((t) => t !== 'address');

export const match = (type: PiiEntityType, text: string, start: number, end: number): PiiMatch => ({
  type,
  start,
  end,
  value: text.slice(start, end),
});
