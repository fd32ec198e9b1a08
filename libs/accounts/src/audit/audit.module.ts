import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditEntryEntity } from './audit-entry.entity';
import { AuditTrail } from './audit-trail.repository';

/** The audit log writer, importable by any module whose changes must be recorded. */
@Module({
  imports: [TypeOrmModule.forFeature([AuditEntryEntity])],
  providers: [AuditTrail],
  exports: [AuditTrail],
})
export class AuditModule {}
