export * from './retry-policy';
export * from './deployment-pick';
export * from './resilience-events';
export * from './deployment-cooldowns';
export * from './upstream-router';
