export * from './accounts.module';
export * from './accounts.service';
export * from './accounts-bootstrap.service';
export * from './session.middleware';
export * from './audit';
export * from './access';
export { LoginThrottleStore } from './login-throttle';
