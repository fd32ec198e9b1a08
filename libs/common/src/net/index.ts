export * from './ip-policy';
export * from './safe-fetcher';
