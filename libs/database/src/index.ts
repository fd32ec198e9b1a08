export * from './columns';
export * from './data-source-options';
export * from './database.module';
export * from './database-health';
export * from './transaction-runner';
export * from './migrations';
export * from './raw-sql';
export * from './database-logger';
