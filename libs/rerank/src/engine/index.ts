export * from './chunking';
export * from './content';
export * from './fingerprint';
export * from './scoring';
