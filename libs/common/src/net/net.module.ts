import { Global, Module } from '@nestjs/common';
import { SAFE_FETCHER_OPTIONS, SafeFetcher, safeFetcherProviders } from './safe-fetcher';

/**
 * The SSRF-guarded fetcher for every module that fetches or forwards user-supplied URLs (chat
 * images, knowledge-base links). One instance; tests replace SAFE_FETCHER_OPTIONS.
 */
@Global()
@Module({ providers: safeFetcherProviders(), exports: [SafeFetcher, SAFE_FETCHER_OPTIONS] })
export class NetModule {}
