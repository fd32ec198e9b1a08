import { Global, Module } from '@nestjs/common';
import { BlockList, isIP } from 'node:net';
import { AppConfig } from '@app/config';
import { SAFE_FETCHER_OPTIONS, SafeFetcher, SafeFetcherOptions } from './safe-fetcher';

/** An address matcher for the networks of OUTBOUND_ALLOW_CIDRS (none: nothing is allowed). */
export function allowedNetworks(
  cidrs: readonly { address: string; prefix: number; family: 'ipv4' | 'ipv6' }[],
): (ip: string) => boolean {
  if (cidrs.length === 0) return () => false;
  const list = new BlockList();
  for (const c of cidrs) list.addSubnet(c.address, c.prefix, c.family);
  return (ip) => {
    const version = isIP(ip);
    return version !== 0 && list.check(ip, version === 6 ? 'ipv6' : 'ipv4');
  };
}

/** The fetcher's options from the configuration: the OUTBOUND_ALLOW_CIDRS exceptions to the address policy. */
export function outboundFetcherOptions(config: AppConfig): SafeFetcherOptions {
  return { allowAddress: allowedNetworks(config.outboundAllowCidrs) };
}

/**
 * The SSRF-guarded fetcher for every module that fetches or forwards user-supplied URLs (chat
 * images, knowledge-base links, integrations, alert deliveries). One instance; tests replace
 * SAFE_FETCHER_OPTIONS.
 */
@Global()
@Module({
  providers: [{ provide: SAFE_FETCHER_OPTIONS, useFactory: outboundFetcherOptions, inject: [AppConfig] }, SafeFetcher],
  exports: [SafeFetcher, SAFE_FETCHER_OPTIONS],
})
export class NetModule {}
