/**
 * Accepts the API key in the three forms of the spec (section 5), on every endpoint:
 *   api-key: K
 *   Authorization: Bearer K
 *   Authorization: api-key K
 * and in the Anthropic SDKs' form, `x-api-key: K`.
 * Returns null when no key is present. Scheme names are case-insensitive.
 */
export function extractApiKey(headers: Record<string, string | string[] | undefined>): string | null {
  const direct = first(headers['api-key']);
  if (direct && direct.trim()) return direct.trim();
  const anthropic = first(headers['x-api-key']);
  if (anthropic && anthropic.trim()) return anthropic.trim();
  const auth = first(headers['authorization']);
  if (!auth) return null;
  const m = /^\s*(bearer|api-key)\s+(\S+)\s*$/i.exec(auth);
  return m ? m[2] : null;
}

function first(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}
