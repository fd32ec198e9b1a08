export * from './request-log.module';
export * from './request-log.writer';
export * from './request-log.settings';
export * from './request-log.repository';
export * from './otel/trace-exporter';
export * from './dto/request-log.dto';
export * from './request-outcomes';
