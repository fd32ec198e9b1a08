export * from './audit';
export * from './audit-entry.entity';
export * from './audit-trail.repository';
export * from './audit.module';
export * from './audit-context';
