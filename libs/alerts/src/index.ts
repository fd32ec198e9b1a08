export * from './alerts.module';
export * from './alert-engine';
export * from './alert-deliveries';
