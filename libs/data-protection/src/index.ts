export * from './policy';
export * from './pii-vault';
export * from './stream-restorer';
export * from './request-protection';
export * from './data-protection';
export * from './data-protection.module';
export type { PiiEntityType, PiiMatch } from './detectors';
