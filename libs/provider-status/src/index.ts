export * from './provider-status.module';
