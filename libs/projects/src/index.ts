export * from './projects.module';
export * from './projects.service';
