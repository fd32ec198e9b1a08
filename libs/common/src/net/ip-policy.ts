/**
 * SSRF address policy: pure functions that decide whether the gateway may open a connection to an
 * address (or hostname) that came from a user-supplied URL.
 *
 * Everything here is deterministic and side-effect free (no DNS, no sockets) so it can be tested
 * exhaustively. The policy is deny-by-default for anything that is not a well-formed, globally
 * routable unicast address:
 *
 *  - IPv4: the special-purpose ranges (RFC 6890 / IANA registry) are enumerated and refused.
 *  - IPv6: only global unicast (2000::/3) is allowed, minus the special-purpose blocks inside it;
 *    addresses that embed an IPv4 address (IPv4-mapped, IPv4-translated, NAT64 64:ff9b::/96, 6to4)
 *    are judged by the embedded IPv4 address.
 *  - Anything that does not parse strictly (e.g. `0177.0.0.1`, `127.1`) is refused: fail closed.
 *  - Cloud metadata endpoints get their own reason so they stand out in logs.
 */

export interface AddressVerdict {
  forbidden: boolean;
  /** Human-readable category, present when `forbidden` is true (e.g. `loopback`, `ipv4-mapped loopback`). */
  reason?: string;
}

export interface ParsedHttpUrl {
  /** The normalized URL (WHATWG parsed; fragment removed). */
  url: URL;
  /** Lower-case hostname without IPv6 brackets and without a trailing dot. */
  hostname: string;
  /** Effective port (default 80/443 filled in). */
  port: number;
  /** `4` or `6` when the host is an IP literal, otherwise `0`. */
  ipVersion: 0 | 4 | 6;
}

export type ParseHttpUrlResult = { ok: true; value: ParsedHttpUrl } | { ok: false; reason: string };

/** Longest http(s) URL accepted (data: URLs are handled separately by the fetcher). */
export const MAX_HTTP_URL_LENGTH = 8192;

const ALLOWED: AddressVerdict = Object.freeze({ forbidden: false });

function deny(reason: string): AddressVerdict {
  return { forbidden: true, reason };
}

// ---------------------------------------------------------------------------------------------
// Parsing
// ---------------------------------------------------------------------------------------------

const DEC_OCTET = /^(?:0|[1-9][0-9]{0,2})$/;
const HEX_GROUP = /^[0-9a-fA-F]{1,4}$/;
const ZONE_ID = /^[0-9A-Za-z._~-]+$/;

/**
 * Strict dotted-quad IPv4 parser: exactly four decimal octets, no leading zeros (which some stacks
 * read as octal), no shorthand forms. Returns the address as an unsigned 32-bit integer.
 */
export function parseIPv4(input: string): number | null {
  const parts = input.split('.');
  if (parts.length !== 4) return null;
  let value = 0;
  for (const part of parts) {
    if (!DEC_OCTET.test(part)) return null;
    const octet = Number(part);
    if (octet > 255) return null;
    value = value * 256 + octet;
  }
  return value >>> 0;
}

/**
 * RFC 4291 textual IPv6 parser (compressed `::`, embedded dotted IPv4 tail, optional `%zone`).
 * Returns the eight 16-bit groups, or null when the text is not a valid IPv6 address.
 */
export function parseIPv6(input: string): number[] | null {
  let text = input;
  const pct = text.indexOf('%');
  if (pct !== -1) {
    const zone = text.slice(pct + 1);
    if (!ZONE_ID.test(zone)) return null;
    text = text.slice(0, pct);
  }
  if (text.length < 2 || text.length > 45) return null;

  const tail: number[] = [];
  const lastColon = text.lastIndexOf(':');
  if (lastColon === -1) return null;
  const lastPart = text.slice(lastColon + 1);
  if (lastPart.includes('.')) {
    const v4 = parseIPv4(lastPart);
    if (v4 === null) return null;
    tail.push(v4 >>> 16, v4 & 0xffff);
    text = text.slice(0, lastColon + 1);
    // "::ffff:" -> "::ffff", but keep a trailing "::" ("::1.2.3.4").
    if (!text.endsWith('::')) text = text.slice(0, -1);
  }

  const halves = text.split('::');
  if (halves.length > 2) return null;

  const parseGroups = (chunk: string): number[] | null => {
    if (chunk === '') return [];
    const out: number[] = [];
    for (const g of chunk.split(':')) {
      if (!HEX_GROUP.test(g)) return null;
      out.push(parseInt(g, 16));
    }
    return out;
  };

  if (halves.length === 2) {
    const head = parseGroups(halves[0]);
    const rest = parseGroups(halves[1]);
    if (head === null || rest === null) return null;
    const explicit = head.length + rest.length + tail.length;
    if (explicit > 7) return null; // "::" stands for at least one zero group
    return [...head, ...new Array<number>(8 - explicit).fill(0), ...rest, ...tail];
  }
  const groups = parseGroups(text);
  if (groups === null || groups.length + tail.length !== 8) return null;
  return [...groups, ...tail];
}

/** Removes `[` `]` around an IPv6 literal (as found in URLs). */
function stripBrackets(ip: string): string {
  return ip.length >= 2 && ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
}

/** 4, 6, or 0 (not an IP literal). Accepts bracketed IPv6 and zones. */
export function ipVersion(ip: string): 0 | 4 | 6 {
  const bare = stripBrackets(ip);
  if (parseIPv4(bare) !== null) return 4;
  if (parseIPv6(bare) !== null) return 6;
  return 0;
}

// ---------------------------------------------------------------------------------------------
// IPv4 policy
// ---------------------------------------------------------------------------------------------

interface Cidr4 {
  base: number;
  bits: number;
  reason: string;
}

function cidr4(base: string, bits: number, reason: string): Cidr4 {
  const parsed = parseIPv4(base);
  if (parsed === null) throw new Error(`bad CIDR base ${base}`);
  return { base: parsed, bits, reason };
}

function inCidr4(addr: number, base: number, bits: number): boolean {
  if (bits === 0) return true;
  const mask = bits === 32 ? 0xffffffff : (~0 << (32 - bits)) >>> 0;
  return (addr & mask) >>> 0 === (base & mask) >>> 0;
}

/** Cloud instance-metadata endpoints (checked first so the reason is explicit). */
const METADATA_V4 = new Set<number>(
  [
    '169.254.169.254', // AWS, GCP, Azure, OpenStack, DigitalOcean, ...
    '169.254.170.2', // AWS ECS task metadata / credentials
    '169.254.170.23', // AWS EKS pod identity agent
    '100.100.100.200', // Alibaba Cloud
    '192.0.0.192', // Oracle Cloud (legacy)
  ].map((ip) => parseIPv4(ip) as number),
);

/** Ordered: the first match wins, so more specific blocks come before the ones containing them. */
const FORBIDDEN_V4: readonly Cidr4[] = [
  cidr4('255.255.255.255', 32, 'broadcast'),
  cidr4('0.0.0.0', 8, 'unspecified'),
  cidr4('10.0.0.0', 8, 'private'),
  cidr4('100.64.0.0', 10, 'cgnat'),
  cidr4('127.0.0.0', 8, 'loopback'),
  cidr4('169.254.0.0', 16, 'link-local'),
  cidr4('172.16.0.0', 12, 'private'),
  cidr4('192.0.0.0', 24, 'reserved'), // IETF protocol assignments (DS-Lite, NAT64 discovery, ...)
  cidr4('192.0.2.0', 24, 'documentation'),
  cidr4('192.31.196.0', 24, 'reserved'), // AS112-v4
  cidr4('192.52.193.0', 24, 'reserved'), // AMT
  cidr4('192.88.99.0', 24, 'reserved'), // deprecated 6to4 relay anycast
  cidr4('192.168.0.0', 16, 'private'),
  cidr4('192.175.48.0', 24, 'reserved'), // AS112 direct delegation
  cidr4('198.18.0.0', 15, 'benchmarking'),
  cidr4('198.51.100.0', 24, 'documentation'),
  cidr4('203.0.113.0', 24, 'documentation'),
  cidr4('224.0.0.0', 4, 'multicast'),
  cidr4('240.0.0.0', 4, 'reserved'),
];

function checkIPv4(addr: number): AddressVerdict {
  if (METADATA_V4.has(addr)) return deny('cloud metadata');
  for (const c of FORBIDDEN_V4) {
    if (inCidr4(addr, c.base, c.bits)) return deny(c.reason);
  }
  return ALLOWED;
}

// ---------------------------------------------------------------------------------------------
// IPv6 policy
// ---------------------------------------------------------------------------------------------

/** True when the first `bits` bits of `groups` equal those of `prefix` (both 8 x 16-bit groups). */
function inPrefix6(groups: readonly number[], prefix: readonly number[], bits: number): boolean {
  let remaining = bits;
  for (let i = 0; i < 8 && remaining > 0; i++) {
    const take = Math.min(16, remaining);
    const mask = (0xffff << (16 - take)) & 0xffff;
    if ((groups[i] & mask) !== (prefix[i] & mask)) return false;
    remaining -= take;
  }
  return true;
}

function prefix6(text: string): number[] {
  const parsed = parseIPv6(text);
  if (parsed === null) throw new Error(`bad IPv6 prefix ${text}`);
  return parsed;
}

function sameAddress6(a: readonly number[], b: readonly number[]): boolean {
  return inPrefix6(a, b, 128);
}

const V6 = {
  unspecified: prefix6('::'),
  loopback: prefix6('::1'),
  mapped: prefix6('::ffff:0:0'), // ::ffff:0:0/96
  translated: prefix6('::ffff:0:0:0'), // ::ffff:0:0:0/96 (SIIT)
  compatible: prefix6('::'), // ::/96 deprecated IPv4-compatible; ::/8 reserved
  nat64: prefix6('64:ff9b::'), // /96
  nat64Local: prefix6('64:ff9b:1::'), // /48
  discard: prefix6('100::'), // /64
  teredo: prefix6('2001::'), // /32
  benchmarking: prefix6('2001:2::'), // /48
  documentation: prefix6('2001:db8::'), // /32
  ietf: prefix6('2001::'), // /23
  sixToFour: prefix6('2002::'), // /16
  documentation2: prefix6('3fff::'), // /20
  globalUnicast: prefix6('2000::'), // /3
  ula: prefix6('fc00::'), // /7
  linkLocal: prefix6('fe80::'), // /10
  siteLocal: prefix6('fec0::'), // /10
  multicast: prefix6('ff00::'), // /8
};

const METADATA_V6: readonly number[][] = [
  prefix6('fd00:ec2::254'), // AWS IMDS over IPv6
  prefix6('fd00:ec2::23'), // AWS EKS pod identity agent
];

function embeddedV4(hi: number, lo: number): number {
  return ((hi << 16) | lo) >>> 0;
}

function viaEmbedded(kind: string, v4: number): AddressVerdict {
  const inner = checkIPv4(v4);
  return inner.forbidden ? deny(`${kind} ${inner.reason ?? 'forbidden'}`) : ALLOWED;
}

function checkIPv6(g: readonly number[]): AddressVerdict {
  if (METADATA_V6.some((m) => sameAddress6(g, m))) return deny('cloud metadata');
  if (sameAddress6(g, V6.unspecified)) return deny('unspecified');
  if (sameAddress6(g, V6.loopback)) return deny('loopback');
  if (inPrefix6(g, V6.mapped, 96)) return viaEmbedded('ipv4-mapped', embeddedV4(g[6], g[7]));
  if (inPrefix6(g, V6.translated, 96)) return viaEmbedded('ipv4-translated', embeddedV4(g[6], g[7]));
  if (inPrefix6(g, V6.compatible, 96)) return deny('ipv4-compatible (deprecated)');
  if (inPrefix6(g, V6.nat64, 96)) return viaEmbedded('nat64', embeddedV4(g[6], g[7]));
  if (inPrefix6(g, V6.nat64Local, 48)) return deny('nat64 local-use');
  if (inPrefix6(g, V6.discard, 64)) return deny('discard-only');
  if (inPrefix6(g, V6.ula, 7)) return deny('private');
  if (inPrefix6(g, V6.linkLocal, 10)) return deny('link-local');
  if (inPrefix6(g, V6.siteLocal, 10)) return deny('site-local (deprecated)');
  if (inPrefix6(g, V6.multicast, 8)) return deny('multicast');
  if (!inPrefix6(g, V6.globalUnicast, 3)) return deny('reserved');
  // Special-purpose blocks inside 2000::/3.
  if (inPrefix6(g, V6.teredo, 32)) return deny('teredo');
  if (inPrefix6(g, V6.documentation, 32)) return deny('documentation');
  if (inPrefix6(g, V6.benchmarking, 48)) return deny('benchmarking');
  if (inPrefix6(g, V6.ietf, 23)) return deny('reserved');
  if (inPrefix6(g, V6.documentation2, 20)) return deny('documentation');
  if (inPrefix6(g, V6.sixToFour, 16)) return viaEmbedded('6to4', embeddedV4(g[1], g[2]));
  return ALLOWED;
}

// ---------------------------------------------------------------------------------------------
// Public API
// ---------------------------------------------------------------------------------------------

/**
 * Decides whether a connection to `ip` must be refused.
 *
 * Accepts dotted-quad IPv4, any RFC 4291 IPv6 text form (compressed, embedded IPv4 tail,
 * `%zone`, optionally `[bracketed]`). Input that is not a strictly valid IP literal is
 * refused with reason `invalid address` (fail closed).
 */
export function isForbiddenAddress(ip: string): AddressVerdict {
  if (typeof ip !== 'string') return deny('invalid address');
  const bare = stripBrackets(ip);
  const v4 = parseIPv4(bare);
  if (v4 !== null) return checkIPv4(v4);
  const v6 = parseIPv6(bare);
  if (v6 !== null) return checkIPv6(v6);
  return deny('invalid address');
}

/** Hostnames refused before any DNS lookup (metadata services, localhost names). */
const FORBIDDEN_HOSTNAMES = new Set<string>([
  'localhost',
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'instance-data',
  'instance-data.ec2.internal',
]);

/** Lower-cases, strips IPv6 brackets and trailing dots: the form used for policy and pinning. */
export function normalizeHostname(hostname: string): string {
  return stripBrackets(hostname.toLowerCase()).replace(/\.+$/, '');
}

/**
 * Hostname-level policy applied before resolution: cloud metadata names and `localhost`
 * (incl. `*.localhost`, RFC 6761). Resolved addresses are still checked afterwards.
 */
export function isForbiddenHostname(hostname: string): AddressVerdict {
  const host = normalizeHostname(hostname);
  if (host === '') return deny('empty hostname');
  if (host === 'localhost' || host.endsWith('.localhost')) return deny('loopback');
  if (FORBIDDEN_HOSTNAMES.has(host)) return deny('cloud metadata');
  return ALLOWED;
}

/**
 * Validates a user-supplied http(s) URL (optionally relative to `base`, for redirects).
 *
 * Refuses: unparsable URLs, schemes other than http/https, userinfo (`user:pass@`), empty hosts,
 * port 0, and URLs longer than {@link MAX_HTTP_URL_LENGTH}. It does NOT apply the address policy;
 * use {@link isForbiddenHostname} / {@link isForbiddenAddress} on the result.
 *
 * Legacy IPv4 spellings (`http://0x7f.1/`, `http://2130706433/`) are canonicalized by the WHATWG
 * parser to dotted quads, so the address check sees the real address.
 */
export function parseHttpUrl(input: string | URL, base?: string | URL): ParseHttpUrlResult {
  const raw = typeof input === 'string' ? input : input.href;
  if (typeof raw !== 'string' || raw.length === 0) return { ok: false, reason: 'empty URL' };
  if (raw.length > MAX_HTTP_URL_LENGTH) return { ok: false, reason: 'URL too long' };

  let url: URL;
  try {
    url = base === undefined ? new URL(raw) : new URL(raw, base);
  } catch {
    return { ok: false, reason: 'malformed URL' };
  }
  if (url.href.length > MAX_HTTP_URL_LENGTH) return { ok: false, reason: 'URL too long' };
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { ok: false, reason: `unsupported scheme ${url.protocol.replace(/:$/, '')}` };
  }
  if (url.username !== '' || url.password !== '') {
    return { ok: false, reason: 'credentials in URL are not allowed' };
  }
  const hostname = normalizeHostname(url.hostname);
  if (hostname === '') return { ok: false, reason: 'missing host' };

  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  if (!Number.isInteger(port) || port <= 0 || port > 65535) return { ok: false, reason: 'invalid port' };

  url.hash = '';
  return { ok: true, value: { url, hostname, port, ipVersion: ipVersion(hostname) } };
}
