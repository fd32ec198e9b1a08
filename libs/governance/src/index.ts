export * from './governance.module';
export * from './rate-limiter';
export * from './rate-limit-events';
export * from './rate-limit.service';
export * from './rate-limit.guard';
