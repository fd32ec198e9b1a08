export * from './admin.module';
export * from './bootstrap.service';
