/** URL helpers shared by adapters (no provider specifics). */

/** `https://x/v1/` + `/chat/completions` → `https://x/v1/chat/completions`. */
export function joinUrl(baseUrl: string, path: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}

export interface DataUrl {
  mimeType: string;
  /** base64 payload */
  data: string;
}

const DATA_URL = /^data:([^,]*?),(.*)$/s;

/**
 * Parse a `data:` URL into its media type and base64 payload. Non-base64 (percent-encoded)
 * payloads are re-encoded to base64. Returns null for anything that is not a data URL.
 */
export function parseDataUrl(url: string): DataUrl | null {
  const match = DATA_URL.exec(url.trim());
  if (!match) return null;
  const params = match[1].split(';').map((p) => p.trim());
  const isBase64 = params.some((p) => p.toLowerCase() === 'base64');
  const mimeType = params[0] !== '' && params[0].includes('/') ? params[0].toLowerCase() : 'text/plain';
  const payload = match[2];
  if (isBase64) return { mimeType, data: payload.replace(/\s+/g, '') };
  let decoded: string;
  try {
    decoded = decodeURIComponent(payload);
  } catch {
    return null;
  }
  return { mimeType, data: Buffer.from(decoded, 'latin1').toString('base64') };
}

/** True for http:// and https:// URLs. */
export function isHttpUrl(url: string): boolean {
  return /^https?:\/\//i.test(url.trim());
}
