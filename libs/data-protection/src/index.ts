export * from './policy';
export * from './pii-vault';
export * from './stream-restorer';
export type { PiiEntityType, PiiMatch } from './detectors';
