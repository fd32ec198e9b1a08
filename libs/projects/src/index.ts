export * from './project-context.port';
