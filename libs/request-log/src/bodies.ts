/**
 * What the request log stores of a body when the team's level is `full`: the JSON with secrets and
 * API keys redacted, image and file bytes replaced by a reference, then cut at the byte cap.
 */

export const REDACTED = '[REDACTED]';

/** Field names whose value is a credential, whatever it looks like. */
const SECRET_KEYS =
  /^(api[-_]?key|x-api-key|authorization|password|passwd|secret|client[-_]?secret|access[-_]?token|refresh[-_]?token|id[-_]?token|bot[-_]?token|token|private[-_]?key|signing[-_]?secret|webhook[-_]?secret|cookie)$|(_secret|_api_key|_password|_token_secret)$/i;

/** Credentials inside free text: provider and gateway keys, bearer tokens, basic auth in URLs. */
const SECRET_TEXT: [RegExp, string][] = [
  [/\b(sk|pk|rk)-(?:ant-|proj-|live-|test-)?[A-Za-z0-9_-]{16,}/g, REDACTED],
  [/\bBearer\s+[A-Za-z0-9._~+/=-]{8,}/gi, `Bearer ${REDACTED}`],
  [/\b(AKIA|ASIA)[A-Z0-9]{16}\b/g, REDACTED],
  [/\bgh[pousr]_[A-Za-z0-9]{20,}\b/g, REDACTED],
  [/\b\d{6,12}:[A-Za-z0-9_-]{30,}\b/g, REDACTED], // Telegram bot tokens
  [/(https?:\/\/)[^\s/:@"]+:[^\s/@"]+@/gi, `$1${REDACTED}@`],
];

/** data: URLs (inline images, files) are stored as a reference to their type and size, never the bytes. */
const DATA_URL = /data:([a-z]+\/[a-z0-9.+-]+)?(?:;[a-z0-9=.-]+)*;base64,[A-Za-z0-9+/=]+/gi;
/** Long base64 runs (b64_json images, inline files) the same way. */
const BASE64_RUN = /[A-Za-z0-9+/]{512,}={0,2}/g;
/** Fields whose string value is file or image bytes. */
const BYTES_KEYS = /^(b64_json|file_data|image_data|data|bytes|content_base64)$/i;

function textRedacted(s: string): string {
  let out = s.replace(DATA_URL, (m: string, type?: string) => `[${type ?? 'data'}: ${base64Bytes(m)} bytes omitted]`);
  out = out.replace(BASE64_RUN, (m) => `[base64: ${base64Bytes(m)} bytes omitted]`);
  for (const [re, to] of SECRET_TEXT) out = out.replace(re, to);
  return out;
}

function base64Bytes(s: string): number {
  const b64 = s.slice(s.indexOf(',') + 1);
  return Math.floor((b64.replace(/=+$/, '').length * 3) / 4);
}

/** A copy of the JSON value with credentials redacted and bytes replaced by references. */
export function redactValue(v: unknown, depth = 0): unknown {
  if (typeof v === 'string') return textRedacted(v);
  if (v === null || typeof v !== 'object' || depth > 32) return v;
  if (Array.isArray(v)) return v.map((x) => redactValue(x, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    if (SECRET_KEYS.test(k) && x !== null && x !== undefined && typeof x !== 'boolean' && typeof x !== 'number')
      out[k] = REDACTED;
    else if (BYTES_KEYS.test(k) && typeof x === 'string' && x.length > 64)
      out[k] = `[base64: ${base64Bytes(x)} bytes omitted]`;
    else out[k] = redactValue(x, depth + 1);
  }
  return out;
}

export interface StoredBody {
  text: string;
  truncated: boolean;
}

/** Cuts `text` at `maxBytes` of UTF-8 (never inside a character). */
export function capBytes(text: string, maxBytes: number): StoredBody {
  if (text.length * 3 <= maxBytes || Buffer.byteLength(text) <= maxBytes) return { text, truncated: false };
  let cut = Buffer.from(text).subarray(0, maxBytes).toString('utf8');
  if (cut.endsWith('\uFFFD')) cut = cut.slice(0, -1);
  return { text: cut, truncated: true };
}

/** A parsed request body (JSON) as stored. */
export function storedRequestBody(body: unknown, maxBytes: number): StoredBody | null {
  if (body === undefined || body === null) return null;
  if (Buffer.isBuffer(body)) return { text: `[${body.length} bytes omitted]`, truncated: false };
  if (typeof body === 'object' && Object.keys(body).length === 0) return null;
  return capBytes(JSON.stringify(redactValue(body)), maxBytes);
}

/**
 * A response body as written (JSON, or an SSE stream's text), as stored: a complete JSON body is
 * redacted field by field, anything else (SSE, a body cut by the capture cap) as text.
 */
export function storedResponseBody(raw: string, captureTruncated: boolean, maxBytes: number): StoredBody | null {
  if (raw === '') return null;
  let text: string;
  if (!captureTruncated && (raw.startsWith('{') || raw.startsWith('['))) {
    try {
      text = JSON.stringify(redactValue(JSON.parse(raw)));
    } catch {
      text = textRedacted(raw);
    }
  } else text = textRedacted(raw);
  const capped = capBytes(text, maxBytes);
  return { text: capped.text, truncated: capped.truncated || captureTruncated };
}
