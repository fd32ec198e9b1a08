export * from '@app/retrieval/chunking';
export * from './content';
export * from './fingerprint';
export * from './scoring';
