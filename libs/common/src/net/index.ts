export * from './ip-policy';
export * from './safe-fetcher';
export * from './guarded-fetch';
