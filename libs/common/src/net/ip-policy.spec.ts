import {
  ipVersion,
  isForbiddenAddress,
  isForbiddenHostname,
  normalizeHostname,
  parseHttpUrl,
  parseIPv4,
  parseIPv6,
} from './ip-policy';

describe('parseIPv4', () => {
  it.each<[string, number | null]>([
    ['0.0.0.0', 0],
    ['1.2.3.4', 0x01020304],
    ['255.255.255.255', 0xffffffff],
    ['127.0.0.1', 0x7f000001],
    ['256.0.0.1', null],
    ['1.2.3', null],
    ['1.2.3.4.5', null],
    ['01.2.3.4', null], // leading zero (octal on some stacks)
    ['0x7f.0.0.1', null],
    ['127.1', null],
    ['2130706433', null],
    ['1.2.3.', null],
    ['', null],
    [' 1.2.3.4', null],
    ['1.2.3.4 ', null],
    ['-1.2.3.4', null],
    ['1.2.3.1000', null],
  ])('%s -> %s', (input, expected) => {
    expect(parseIPv4(input)).toBe(expected);
  });
});

describe('parseIPv6', () => {
  const g = (...groups: number[]): number[] => groups;
  it.each<[string, number[] | null]>([
    ['::', g(0, 0, 0, 0, 0, 0, 0, 0)],
    ['::1', g(0, 0, 0, 0, 0, 0, 0, 1)],
    ['1::', g(1, 0, 0, 0, 0, 0, 0, 0)],
    ['2001:db8::1', g(0x2001, 0xdb8, 0, 0, 0, 0, 0, 1)],
    ['2001:0db8:0000:0000:0000:0000:0000:0001', g(0x2001, 0xdb8, 0, 0, 0, 0, 0, 1)],
    ['1:2:3:4:5:6:7:8', g(1, 2, 3, 4, 5, 6, 7, 8)],
    ['1:2:3:4:5:6:7::', g(1, 2, 3, 4, 5, 6, 7, 0)],
    ['::2:3:4:5:6:7:8', g(0, 2, 3, 4, 5, 6, 7, 8)],
    ['FE80::ABCD', g(0xfe80, 0, 0, 0, 0, 0, 0, 0xabcd)],
    ['fe80::1%eth0', g(0xfe80, 0, 0, 0, 0, 0, 0, 1)],
    ['fe80::1%25', g(0xfe80, 0, 0, 0, 0, 0, 0, 1)],
    ['::ffff:127.0.0.1', g(0, 0, 0, 0, 0, 0xffff, 0x7f00, 1)],
    ['::ffff:7f00:1', g(0, 0, 0, 0, 0, 0xffff, 0x7f00, 1)],
    ['::127.0.0.1', g(0, 0, 0, 0, 0, 0, 0x7f00, 1)],
    ['1:2:3:4:5:6:1.2.3.4', g(1, 2, 3, 4, 5, 6, 0x102, 0x304)],
    ['64:ff9b::10.0.0.1', g(0x64, 0xff9b, 0, 0, 0, 0, 0x0a00, 1)],
    // invalid
    ['', null],
    [':', null],
    [':::', null],
    ['1:2:3:4:5:6:7:8:9', null],
    ['1:2:3:4:5:6:7', null],
    ['1::2::3', null],
    ['12345::', null],
    ['g::1', null],
    [':1::', null],
    ['1:2:3:4:5:6:7:8::', null],
    ['1:2:3:4:5:6:7:1.2.3.4', null],
    ['::ffff:256.0.0.1', null],
    ['::ffff:1.2.3', null],
    ['::ffff::1.2.3.4', null],
    [':ffff:1.2.3.4', null],
    ['fe80::1%', null],
    ['fe80::1%a b', null],
    ['1.2.3.4', null],
    ['[::1]', null],
  ])('%s', (input, expected) => {
    expect(parseIPv6(input)).toEqual(expected);
  });
});

describe('ipVersion', () => {
  it.each<[string, 0 | 4 | 6]>([
    ['1.2.3.4', 4],
    ['::1', 6],
    ['[::1]', 6],
    ['[fe80::1%eth0]', 6],
    ['example.com', 0],
    ['127.1', 0],
    ['', 0],
  ])('%s -> %s', (input, expected) => {
    expect(ipVersion(input)).toBe(expected);
  });
});

describe('isForbiddenAddress', () => {
  // [address, reason] — every row must be refused with exactly this reason.
  const forbidden: Array<[string, string]> = [
    // IPv4 unspecified / this network
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['0.255.255.255', 'unspecified'],
    // loopback
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['127.1.2.3', 'loopback'],
    // private
    ['10.0.0.0', 'private'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.0', 'private'],
    ['172.16.0.1', 'private'],
    ['172.20.10.5', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.0.1', 'private'],
    ['192.168.255.255', 'private'],
    // CGNAT
    ['100.64.0.0', 'cgnat'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.255', 'cgnat'],
    // link-local
    ['169.254.0.1', 'link-local'],
    ['169.254.255.255', 'link-local'],
    // metadata
    ['169.254.169.254', 'cloud metadata'],
    ['169.254.170.2', 'cloud metadata'],
    ['100.100.100.200', 'cloud metadata'],
    ['192.0.0.192', 'cloud metadata'],
    // multicast
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    // reserved / broadcast
    ['240.0.0.1', 'reserved'],
    ['250.1.2.3', 'reserved'],
    ['255.255.255.254', 'reserved'],
    ['255.255.255.255', 'broadcast'],
    ['192.0.0.1', 'reserved'],
    ['192.88.99.1', 'reserved'],
    // documentation / benchmarking
    ['192.0.2.1', 'documentation'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.9', 'documentation'],
    ['198.18.0.1', 'benchmarking'],
    ['198.19.255.255', 'benchmarking'],

    // IPv6 basics
    ['::', 'unspecified'],
    ['0:0:0:0:0:0:0:0', 'unspecified'],
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['0000:0000:0000:0000:0000:0000:0000:0001', 'loopback'],
    ['[::1]', 'loopback'],
    // ULA / link-local / site-local / multicast
    ['fc00::1', 'private'],
    ['fd12:3456:789a::1', 'private'],
    ['fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'private'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['[fe80::1%25en0]', 'link-local'],
    ['febf::1', 'link-local'],
    ['fec0::1', 'site-local (deprecated)'],
    ['ff02::1', 'multicast'],
    ['ff05::1:3', 'multicast'],
    ['FF0E::1', 'multicast'],
    // metadata
    ['fd00:ec2::254', 'cloud metadata'],
    ['fd00:ec2:0:0:0:0:0:254', 'cloud metadata'],
    ['fd00:ec2::23', 'cloud metadata'],
    // IPv4-mapped (dotted and hex forms)
    ['::ffff:127.0.0.1', 'ipv4-mapped loopback'],
    ['::ffff:7f00:1', 'ipv4-mapped loopback'],
    ['0:0:0:0:0:ffff:7f00:0001', 'ipv4-mapped loopback'],
    ['::FFFF:127.0.0.1', 'ipv4-mapped loopback'],
    ['::ffff:10.0.0.1', 'ipv4-mapped private'],
    ['::ffff:192.168.1.1', 'ipv4-mapped private'],
    ['::ffff:169.254.169.254', 'ipv4-mapped cloud metadata'],
    ['::ffff:a9fe:a9fe', 'ipv4-mapped cloud metadata'],
    ['::ffff:0.0.0.0', 'ipv4-mapped unspecified'],
    ['::ffff:100.64.0.1', 'ipv4-mapped cgnat'],
    ['::ffff:224.0.0.1', 'ipv4-mapped multicast'],
    ['::ffff:255.255.255.255', 'ipv4-mapped broadcast'],
    // IPv4-translated (SIIT)
    ['::ffff:0:127.0.0.1', 'ipv4-translated loopback'],
    ['::ffff:0:a00:1', 'ipv4-translated private'],
    // IPv4-compatible (deprecated) and the rest of ::/8
    ['::127.0.0.1', 'ipv4-compatible (deprecated)'],
    ['::8.8.8.8', 'ipv4-compatible (deprecated)'],
    ['::2', 'ipv4-compatible (deprecated)'],
    ['::1:0:0:0', 'reserved'],
    // NAT64
    ['64:ff9b::127.0.0.1', 'nat64 loopback'],
    ['64:ff9b::7f00:1', 'nat64 loopback'],
    ['64:ff9b::10.0.0.1', 'nat64 private'],
    ['64:ff9b::169.254.169.254', 'nat64 cloud metadata'],
    ['64:ff9b::a9fe:a9fe', 'nat64 cloud metadata'],
    ['64:ff9b::192.168.0.1', 'nat64 private'],
    ['64:ff9b:1::1', 'nat64 local-use'],
    // discard, Teredo, 6to4, documentation, other specials
    ['100::1', 'discard-only'],
    ['2001::1', 'teredo'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'teredo'],
    ['2001:db8::1', 'documentation'],
    ['2001:db8:ffff::1', 'documentation'],
    ['3fff::1', 'documentation'],
    ['2001:2::1', 'benchmarking'],
    ['2001:10::1', 'reserved'],
    ['2001:1::1', 'reserved'],
    ['2002:7f00:1::1', '6to4 loopback'],
    ['2002:a00:1::', '6to4 private'],
    ['2002:a9fe:a9fe::1', '6to4 cloud metadata'],
    // outside 2000::/3
    ['4000::1', 'reserved'],
    ['5f00::1', 'reserved'],
    ['1000::1', 'reserved'],
    ['e000::1', 'reserved'],
    // not an IP: fail closed
    ['', 'invalid address'],
    ['localhost', 'invalid address'],
    ['example.com', 'invalid address'],
    ['127.1', 'invalid address'],
    ['0177.0.0.1', 'invalid address'],
    ['0x7f000001', 'invalid address'],
    ['2130706433', 'invalid address'],
    ['1.2.3.4.5', 'invalid address'],
    ['::ffff:1.2.3', 'invalid address'],
    ['[::1', 'invalid address'],
    ['::1]', 'invalid address'],
    ['1::2::3', 'invalid address'],
  ];

  it.each(forbidden)('refuses %s (%s)', (address, reason) => {
    expect(isForbiddenAddress(address)).toEqual({ forbidden: true, reason });
  });

  const allowed: string[] = [
    '1.1.1.1',
    '8.8.8.8',
    '93.184.216.34',
    '9.255.255.255', // just below 10/8
    '11.0.0.0', // just above 10/8
    '100.63.255.255', // just below 100.64/10
    '100.128.0.0', // just above 100.64/10
    '126.255.255.255',
    '128.0.0.1',
    '169.253.255.255',
    '169.255.0.1',
    '172.15.255.255', // just below 172.16/12
    '172.32.0.0', // just above 172.16/12
    '192.167.255.255',
    '192.169.0.0',
    '198.17.255.255',
    '198.20.0.0',
    '223.255.255.255', // just below multicast
    '2606:4700:4700::1111',
    '2a00:1450:4001:80b::200e',
    '2001:4860:4860::8888',
    '2600::',
    '3ffe::1', // just below 3fff::/20
    '::ffff:8.8.8.8', // mapped public
    '::ffff:808:808',
    '64:ff9b::8.8.8.8', // NAT64 of public
    '2002:808:808::1', // 6to4 of public
    '[2606:4700:4700::1111]',
  ];

  it.each(allowed)('allows %s', (address) => {
    expect(isForbiddenAddress(address)).toEqual({ forbidden: false });
  });
});

describe('isForbiddenHostname / normalizeHostname', () => {
  it.each<[string, string | null]>([
    ['localhost', 'loopback'],
    ['LOCALHOST', 'loopback'],
    ['localhost.', 'loopback'],
    ['foo.localhost', 'loopback'],
    ['metadata.google.internal', 'cloud metadata'],
    ['Metadata.Google.Internal.', 'cloud metadata'],
    ['metadata', 'cloud metadata'],
    ['metadata.goog', 'cloud metadata'],
    ['instance-data', 'cloud metadata'],
    ['instance-data.ec2.internal', 'cloud metadata'],
    ['', 'empty hostname'],
    ['example.com', null],
    ['localhost.example.com', null],
    ['metadata.example.com', null],
  ])('%s', (host, reason) => {
    expect(isForbiddenHostname(host)).toEqual(reason === null ? { forbidden: false } : { forbidden: true, reason });
  });

  it.each<[string, string]>([
    ['Example.COM.', 'example.com'],
    ['[::1]', '::1'],
    ['a.b..', 'a.b'],
  ])('normalizes %s -> %s', (input, expected) => {
    expect(normalizeHostname(input)).toBe(expected);
  });
});

describe('parseHttpUrl', () => {
  it.each<[string, { href: string; hostname: string; port: number; ipVersion: 0 | 4 | 6 }]>([
    ['http://example.com', { href: 'http://example.com/', hostname: 'example.com', port: 80, ipVersion: 0 }],
    [
      'https://Example.com:8443/a?b=1#frag',
      { href: 'https://example.com:8443/a?b=1', hostname: 'example.com', port: 8443, ipVersion: 0 },
    ],
    ['HTTPS://example.com/x', { href: 'https://example.com/x', hostname: 'example.com', port: 443, ipVersion: 0 }],
    ['http://127.0.0.1:8080/x', { href: 'http://127.0.0.1:8080/x', hostname: '127.0.0.1', port: 8080, ipVersion: 4 }],
    ['http://[::1]/', { href: 'http://[::1]/', hostname: '::1', port: 80, ipVersion: 6 }],
    [
      'http://[::ffff:127.0.0.1]/',
      { href: 'http://[::ffff:7f00:1]/', hostname: '::ffff:7f00:1', port: 80, ipVersion: 6 },
    ],
    // legacy IPv4 spellings are canonicalized by the WHATWG parser
    ['http://0x7f.1/', { href: 'http://127.0.0.1/', hostname: '127.0.0.1', port: 80, ipVersion: 4 }],
    ['http://2130706433/', { href: 'http://127.0.0.1/', hostname: '127.0.0.1', port: 80, ipVersion: 4 }],
    ['http://0177.0.0.1/', { href: 'http://127.0.0.1/', hostname: '127.0.0.1', port: 80, ipVersion: 4 }],
    ['http://127.1/', { href: 'http://127.0.0.1/', hostname: '127.0.0.1', port: 80, ipVersion: 4 }],
    ['http://example.com./p', { href: 'http://example.com./p', hostname: 'example.com', port: 80, ipVersion: 0 }],
    ['  http://example.com/  ', { href: 'http://example.com/', hostname: 'example.com', port: 80, ipVersion: 0 }],
  ])('accepts %s', (input, expected) => {
    const result = parseHttpUrl(input);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect({
      href: result.value.url.href,
      hostname: result.value.hostname,
      port: result.value.port,
      ipVersion: result.value.ipVersion,
    }).toEqual(expected);
  });

  it.each<[string, RegExp]>([
    ['', /empty/],
    ['not a url', /malformed/],
    ['/relative/path', /malformed/],
    ['ftp://example.com/file', /unsupported scheme ftp/],
    ['file:///etc/passwd', /unsupported scheme file/],
    ['gopher://127.0.0.1:6379/_', /unsupported scheme gopher/],
    ['javascript:alert(1)', /unsupported scheme/],
    ['data:image/png;base64,AAAA', /unsupported scheme data/],
    ['ws://example.com/', /unsupported scheme ws/],
    ['http://user:pass@example.com/', /credentials/],
    ['http://user@example.com/', /credentials/],
    ['http://:pass@example.com/', /credentials/],
    ['http://evil.com@127.0.0.1/', /credentials/],
    ['http://example.com:0/', /invalid port/],
    ['http://example.com:99999/', /malformed/],
    ['http://[::1/', /malformed/],
    ['http://[fe80::1%25eth0]/', /malformed/],
    ['http:///', /malformed|missing host/],
    [`http://example.com/${'a'.repeat(9000)}`, /too long/],
  ])('refuses %s', (input, reason) => {
    const result = parseHttpUrl(input);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.reason).toMatch(reason);
  });

  it('resolves relative redirects against a base', () => {
    const result = parseHttpUrl('../b?x=1', new URL('http://example.com/a/c/d'));
    expect(result.ok && result.value.url.href).toBe('http://example.com/a/b?x=1');
    const abs = parseHttpUrl('//other.example/x', new URL('https://example.com/'));
    expect(abs.ok && abs.value.url.href).toBe('https://other.example/x');
    const bad = parseHttpUrl('ftp://x/', new URL('https://example.com/'));
    expect(bad.ok).toBe(false);
  });

  it('accepts a URL object', () => {
    const result = parseHttpUrl(new URL('https://example.com/a'));
    expect(result.ok && result.value.hostname).toBe('example.com');
  });
});
