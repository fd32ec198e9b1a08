/**
 * What the request log stores of a body when the team's level is `full`: the JSON with secrets and
 * API keys redacted, image and file bytes replaced by a reference, then cut at the byte cap.
 */

export const REDACTED = '[REDACTED]';

/**
 * Field names whose value is a credential, whatever it looks like: tested on the name lower-cased
 * with everything but letters and digits removed (`auth_token`, `apiToken`, `Auth-Token` →
 * `authtoken`). A matching field's whole value is redacted, objects included (`credentials: {…}`).
 */
const SECRET_NAME_PARTS =
  /(password|passwd|passphrase|secret|apikey|accesskey|privatekey|signingkey|sessionkey|credential|authorization|cookie)/;
const SECRET_NAME_ENDS = /(token|tokensecret)$/;
const SECRET_NAMES = new Set(['auth', 'pass', 'pwd', 'pin', 'xapikey']);

export function isSecretName(name: string): boolean {
  const k = name.toLowerCase().replace(/[^a-z0-9]/g, '');
  return SECRET_NAMES.has(k) || SECRET_NAME_PARTS.test(k) || SECRET_NAME_ENDS.test(k);
}

/**
 * Credentials inside free text. The shapes follow gitleaks' default rule set (config/gitleaks.toml,
 * MIT: aws-access-token, github-pat / github-fine-grained-pat, slack-*-token, slack-webhook-url,
 * stripe-access-token, gcp-api-key, jwt, private-key, generic-api-key) and secretlint's basicauth
 * rule (credentials in any URL scheme); see docs/decisions/request-log-redaction.md.
 */
const SECRET_TEXT: [RegExp, string][] = [
  // PEM private keys: the whole block, or everything after a BEGIN that never ends (a cut body)
  [
    /-----BEGIN[A-Z0-9 _-]{0,100}PRIVATE KEY(?: BLOCK)?-----[\s\S]*?-----END[A-Z0-9 _-]{0,100}PRIVATE KEY(?: BLOCK)?-----/g,
    `-----BEGIN PRIVATE KEY-----${REDACTED}-----END PRIVATE KEY-----`,
  ],
  [/-----BEGIN[A-Z0-9 _-]{0,100}PRIVATE KEY(?: BLOCK)?-----[\s\S]*$/g, `-----BEGIN PRIVATE KEY-----${REDACTED}`],
  // credentials in a URL of any scheme (https, postgres, redis, amqp, ftp, …): user:password@ or token@
  [/\b([a-z][a-z0-9+.-]{1,30}:\/\/)[^\s/?#@"'<>\\]{1,512}@/gi, `$1${REDACTED}@`],
  [/\b(sk|pk|rk)-(?:ant-|proj-|live-|test-)?[A-Za-z0-9_-]{16,}/g, REDACTED],
  [/\b(sk|rk|pk)_(?:test|live|prod)_[A-Za-z0-9]{10,99}\b/g, REDACTED], // Stripe
  [/\bwhsec_[A-Za-z0-9+/=]{20,}/g, REDACTED], // Stripe / Standard Webhooks signing secrets
  [/\bBearer\s+[A-Za-z0-9._~+/=-]{8,}/gi, `Bearer ${REDACTED}`],
  [/\bBasic\s+[A-Za-z0-9+/=]{8,}/g, `Basic ${REDACTED}`],
  [/\b(AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}\b/g, REDACTED], // AWS access key ids
  [/\bgh[pousr]_[A-Za-z0-9]{20,}\b/g, REDACTED],
  [/\bgithub_pat_[A-Za-z0-9_]{22,}/g, REDACTED],
  [/\bxox[abposre]-[A-Za-z0-9-]{10,}/g, REDACTED], // Slack bot, user, legacy tokens
  [/\bxapp-\d-[A-Za-z0-9-]{10,}/g, REDACTED], // Slack app-level tokens
  [/(hooks\.slack\.com\/(?:services|workflows|triggers)\/)[A-Za-z0-9+/_-]{20,}/gi, `$1${REDACTED}`],
  [/\bAIza[0-9A-Za-z_-]{35}\b/g, REDACTED], // Google API keys
  [/\bGOCSPX-[A-Za-z0-9_-]{20,}/g, REDACTED], // Google OAuth client secrets
  [/\bya29\.[0-9A-Za-z_-]{20,}/g, REDACTED], // Google OAuth access tokens
  [/\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, REDACTED], // JWTs
  [/\b\d{6,12}:[A-Za-z0-9_-]{30,}\b/g, REDACTED], // Telegram bot tokens
  // `name = value`, `name: value`, `"name": "value"`, `?name=value` with a credential's name
  [
    /\b([A-Za-z0-9_.-]{0,40}(?:password|passwd|passphrase|secret|api[_-]?key|apikey|access[_-]?key|private[_-]?key|token|credentials?))(\\?["']?\s*[:=]\s*\\?["']?)([^\s"'\\,;&}]{4,})/gi,
    `$1$2${REDACTED}`,
  ],
];

/** data: URLs (inline images, files) are stored as a reference to their type and size, never the bytes. */
const DATA_URL = /data:([a-z]+\/[a-z0-9.+-]+)?(?:;[a-z0-9=.-]+)*;base64,[A-Za-z0-9+/=]+/gi;
/** Long base64 runs (b64_json images, inline files) the same way. */
const BASE64_RUN = /[A-Za-z0-9+/]{512,}={0,2}/g;
/** Fields whose string value is file or image bytes. */
const BYTES_KEYS = /^(b64_json|file_data|image_data|data|bytes|content_base64)$/i;

/** Free text with the credentials it contains redacted (bodies that are not JSON, headers such as User-Agent). */
export function textRedacted(s: string): string {
  let out = s.replace(DATA_URL, (m: string, type?: string) => `[${type ?? 'data'}: ${base64Bytes(m)} bytes omitted]`);
  out = out.replace(BASE64_RUN, (m) => `[base64: ${base64Bytes(m)} bytes omitted]`);
  for (const [re, to] of SECRET_TEXT) out = out.replace(re, to);
  return out;
}

function base64Bytes(s: string): number {
  const b64 = s.slice(s.indexOf(',') + 1);
  return Math.floor((b64.replace(/=+$/, '').length * 3) / 4);
}

/** Objects and arrays nested deeper than this are stored as a marker, never their content. */
export const MAX_DEPTH = 32;
export const TOO_DEEP = `[nested deeper than ${MAX_DEPTH} levels: omitted]`;

/**
 * A copy of the JSON value with credentials redacted and bytes replaced by references. What is
 * nested deeper than MAX_DEPTH is dropped (replaced by TOO_DEEP), so nothing escapes redaction.
 */
export function redactValue(v: unknown, depth = 0): unknown {
  if (typeof v === 'string') return textRedacted(v);
  if (v === null || typeof v !== 'object') return v;
  if (depth >= MAX_DEPTH) return TOO_DEEP;
  if (Array.isArray(v)) return v.map((x) => redactValue(x, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    if (isSecretName(k) && x !== null && x !== undefined && typeof x !== 'boolean' && typeof x !== 'number')
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
