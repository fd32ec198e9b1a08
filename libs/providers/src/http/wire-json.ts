/**
 * Narrowing helpers for untrusted JSON read off the wire. Adapters never trust an upstream body's
 * shape: every field is read through these and checked.
 */

export type JsonRecord = Record<string, unknown>;

export function isRecord(value: unknown): value is JsonRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function asRecord(value: unknown): JsonRecord | undefined {
  return isRecord(value) ? value : undefined;
}

export function asString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** A finite number, or undefined. */
export function asNumber(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** The array itself, or an empty array for anything else. */
export function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** A non-negative integer token count (0 when absent or malformed). */
export function asCount(value: unknown): number {
  const n = asNumber(value);
  return n !== undefined && n > 0 ? Math.floor(n) : 0;
}

export type JsonParseResult = { ok: true; value: unknown } | { ok: false };

export function parseJson(text: string): JsonParseResult {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}
