import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

export const API_KEY_PREFIX = 'sk-';
const RANDOM_BYTES = 32; // 256 bits of entropy

/** A new key: `sk-` + 43 base64url characters (32 random bytes). */
export function generateApiKey(): string {
  return API_KEY_PREFIX + randomBytes(RANDOM_BYTES).toString('base64url');
}

/** What is stored and looked up: hex SHA-256 of the whole key. */
export function hashApiKey(key: string): string {
  // the one-shot form: no Hash object per call (it runs on every authenticated request)
  return hash('sha256', key, 'hex');
}

/** Short display prefix, enough to recognise a key in a list and never enough to use it. */
export function displayPrefix(key: string): string {
  return key.slice(0, API_KEY_PREFIX.length + 8);
}

/** Constant-time comparison of two secrets of any length (compares their SHA-256 digests). */
export function secretsEqual(a: string, b: string): boolean {
  const da = hash('sha256', a, 'buffer');
  const db = hash('sha256', b, 'buffer');
  return timingSafeEqual(da, db);
}
