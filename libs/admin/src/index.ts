export * from './admin.module';
export * from './bootstrap.service';
export * from './admin.service';
