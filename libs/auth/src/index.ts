export * from './auth.module';
export * from './api-keys.service';
export * from './api-key.crypto';
export * from './api-key.header';
export * from './guards';
export * from './auth-gate';
export * from './principal';
