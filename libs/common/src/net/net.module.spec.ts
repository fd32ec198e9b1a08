import { allowedNetworks } from './net.module';
import { SafeFetcher } from './safe-fetcher';

describe('OUTBOUND_ALLOW_CIDRS in the SSRF guard', () => {
  const allow = allowedNetworks([
    { address: '127.0.0.0', prefix: 8, family: 'ipv4' },
    { address: '169.254.0.0', prefix: 16, family: 'ipv4' },
    { address: 'fd00:1234::', prefix: 32, family: 'ipv6' },
  ]);

  it('matches addresses inside the networks only', () => {
    expect(allow('127.0.0.1')).toBe(true);
    expect(allow('127.255.1.2')).toBe(true);
    expect(allow('10.0.0.1')).toBe(false);
    expect(allow('fd00:1234::5')).toBe(true);
    expect(allow('fd00:1235::5')).toBe(false);
    expect(allow('not-an-ip')).toBe(false);
    expect(allowedNetworks([])('127.0.0.1')).toBe(false);
  });

  it('lets the fetcher reach allowed networks; cloud metadata and localhost stay refused', async () => {
    const fetcher = SafeFetcher.create({ allowAddress: allow });
    await expect(fetcher.assertPublicUrl('http://127.0.0.1:8080/hook')).resolves.toBeUndefined();
    await expect(fetcher.assertPublicUrl('http://10.1.2.3/hook')).rejects.toMatchObject({ code: 'forbidden_address' });
    await expect(fetcher.assertPublicUrl('http://169.254.169.254/latest')).rejects.toMatchObject({
      code: 'forbidden_address',
    });
    await expect(fetcher.assertPublicUrl('http://localhost/hook')).rejects.toMatchObject({ code: 'forbidden_address' });
    await expect(SafeFetcher.create({}).assertPublicUrl('http://127.0.0.1/')).rejects.toMatchObject({
      code: 'forbidden_address',
    });
  });
});
