import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Signed, expiring image links: `sig = HMAC-SHA256(secret, "<id>.<expires>")`, base64url.
 * Anyone holding the link can read the image until `expires` (epoch ms); nothing else can.
 */
export function signImageLink(secret: string, id: string, expires: number): string {
  return createHmac('sha256', secret).update(`${id}.${expires}`).digest('base64url');
}

export type LinkCheck = 'ok' | 'expired' | 'invalid';

export function checkImageLink(
  secret: string,
  id: string,
  expires: string | undefined,
  sig: string | undefined,
  now: number,
): LinkCheck {
  if (!expires || !sig || !/^\d{1,16}$/.test(expires)) return 'invalid';
  const expected = Buffer.from(signImageLink(secret, id, Number(expires)));
  const given = Buffer.from(sig);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'invalid';
  return Number(expires) <= now ? 'expired' : 'ok';
}

export function newLinkSecret(): string {
  return randomBytes(32).toString('base64url');
}
