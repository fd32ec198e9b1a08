import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** Standard Webhooks (standardwebhooks.com): signatures older or newer than this are refused. */
export const WEBHOOK_TOLERANCE_SECONDS = 5 * 60;

/** A new signing secret: `whsec_` + base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** `v1,<base64 HMAC-SHA256(key, "id.timestamp.body")>`, the key being the base64-decoded part after `whsec_`. */
export function signWebhook(secret: string, id: string, timestamp: number | string, body: Buffer | string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const mac = createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest('base64');
  return `v1,${mac}`;
}

export type WebhookVerdict = { ok: true } | { ok: false; reason: string };

/**
 * Verifies a delivery: all three headers present, the timestamp within ±5 minutes of `nowSeconds`,
 * and at least one of the space-separated `v1,<sig>` signatures equal (constant-time) to ours.
 */
export function verifyWebhook(
  secret: string,
  headers: { id?: string; timestamp?: string; signature?: string },
  body: Buffer,
  nowSeconds: number,
): WebhookVerdict {
  const { id, timestamp, signature } = headers;
  if (!id || !timestamp || !signature)
    return { ok: false, reason: 'webhook-id, webhook-timestamp and webhook-signature headers are required.' };
  if (!/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: 'webhook-timestamp must be Unix seconds.' };
  if (Math.abs(nowSeconds - Number(timestamp)) > WEBHOOK_TOLERANCE_SECONDS)
    return { ok: false, reason: 'webhook-timestamp is more than 5 minutes away from the server time.' };
  const expected = Buffer.from(signWebhook(secret, id, timestamp, body).slice(3), 'base64');
  for (const part of signature.split(' ')) {
    const [version, sig] = part.split(',', 2);
    if (version !== 'v1' || !sig) continue;
    const given = Buffer.from(sig, 'base64');
    if (given.length === expected.length && timingSafeEqual(given, expected)) return { ok: true };
  }
  return { ok: false, reason: 'No webhook-signature matches.' };
}
