import { isIP } from 'node:net';
import { ConfigError, Env, int, str } from './readers';

/** Security: trusted proxies, the networks outbound requests may reach, and the secrets that must be long enough. */

/**
 * TRUST_PROXY: unset or "false" → the socket's address is the client's; "true" → the left-most
 * X-Forwarded-For entry; a number → that many proxy hops are trusted; otherwise a comma-separated list
 * of addresses, subnets or Express's names (loopback, linklocal, uniquelocal) of the trusted proxies.
 */
export function trustProxy(env: Env): boolean | number | string | undefined {
  const raw = str(env, 'TRUST_PROXY');
  if (raw === undefined || raw === 'false') return undefined;
  if (raw === 'true') return true;
  if (/^\d+$/.test(raw)) return int(env, 'TRUST_PROXY', 0, 0, 100);
  const parts = raw.split(',').map((p) => p.trim());
  if (parts.some((p) => !/^[0-9a-fA-F:./]+$/.test(p) && !['loopback', 'linklocal', 'uniquelocal'].includes(p)))
    throw new ConfigError(
      `TRUST_PROXY must be true, false, a hop count or a comma-separated list of addresses/subnets, got "${raw}"`,
    );
  return parts.join(',');
}

/** One OUTBOUND_ALLOW_CIDRS entry: a network the SSRF guard lets outbound requests reach. */
export interface AllowedCidr {
  address: string;
  prefix: number;
  family: 'ipv4' | 'ipv6';
}

/**
 * OUTBOUND_ALLOW_CIDRS: comma-separated networks (`10.20.0.0/16`, `fd00::/8`, or a single address)
 * that outbound requests may reach although the SSRF policy refuses them (cloud metadata never).
 */
export function outboundAllowCidrs(env: Env): AllowedCidr[] {
  const raw = str(env, 'OUTBOUND_ALLOW_CIDRS');
  if (raw === undefined) return [];
  return raw
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)
    .map((entry) => {
      const [address, bits, extra] = entry.split('/');
      const version = isIP(address ?? '');
      const max = version === 6 ? 128 : 32;
      const prefix = bits === undefined ? max : /^\d{1,3}$/.test(bits) ? Number(bits) : NaN;
      if (version === 0 || extra !== undefined || !(prefix >= 0 && prefix <= max))
        throw new ConfigError(`OUTBOUND_ALLOW_CIDRS entries must be CIDRs like 10.0.0.0/8 or fd00::/8, got "${entry}"`);
      return { address, prefix, family: version === 6 ? 'ipv6' : 'ipv4' };
    });
}

export function integrationSecretKey(env: Env): string | undefined {
  const v = str(env, 'INTEGRATION_SECRET_KEY');
  if (v !== undefined && v.length < 32) throw new ConfigError('INTEGRATION_SECRET_KEY must be at least 32 characters');
  return v;
}

export function imageUrlSecret(env: Env): string | undefined {
  const v = str(env, 'IMAGE_URL_SECRET');
  if (v !== undefined && v.length < 32) throw new ConfigError('IMAGE_URL_SECRET must be at least 32 characters');
  return v;
}
