import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ChangeRecorder } from '@app/database';
import { AuditEntryEntity } from './audit-entry.entity';
import { AuditTrail } from './audit-trail.repository';

/**
 * The audit log writer, importable by any module whose changes must be recorded: `AuditTrail`, and
 * the `ChangeRecorder` port its repositories call inside their transactions. The actor of those
 * records is the caller of the request being served (AuditContext, from the RequestScope).
 */
@Module({
  imports: [TypeOrmModule.forFeature([AuditEntryEntity])],
  providers: [AuditTrail, { provide: ChangeRecorder, useExisting: AuditTrail }],
  exports: [AuditTrail, ChangeRecorder],
})
export class AuditModule {}
