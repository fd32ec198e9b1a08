export * from './audit';
export * from './audit-entry.entity';
export * from './audit-trail.service';
export * from './audit.module';
