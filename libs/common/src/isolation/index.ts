export * from './parse-limit';
export * from './parser-pool';
export * from './isolation.module';
export * from './worker-entry';
