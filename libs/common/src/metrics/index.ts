export * from './metrics.service';
export * from './request-context';
export * from './request-observer';
export * from './metrics.controller';
export * from './metrics.module';
export * from './background-calls';
