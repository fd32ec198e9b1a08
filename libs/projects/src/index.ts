export * from './project-context.port';
export * from './projects.module';
export * from './projects.service';
