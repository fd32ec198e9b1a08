import { MiddlewareConsumer, Module, NestModule, RequestMethod } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ChangeRecorder } from '@app/database';
import { AuditEntryEntity } from './audit-entry.entity';
import { auditContextMiddleware } from './audit-context';
import { AuditTrail } from './audit-trail.repository';

/**
 * The audit log writer, importable by any module whose changes must be recorded: `AuditTrail`, and
 * the `ChangeRecorder` port its repositories call inside their transactions. Every request is bound
 * to its actor (AuditContext) for those records.
 */
@Module({
  imports: [TypeOrmModule.forFeature([AuditEntryEntity])],
  providers: [AuditTrail, { provide: ChangeRecorder, useExisting: AuditTrail }],
  exports: [AuditTrail, ChangeRecorder],
})
export class AuditModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(auditContextMiddleware).forRoutes({ path: '{/*splat}', method: RequestMethod.ALL });
  }
}
