import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '@app/accounts/audit';
import { AuthModule } from '@app/auth';
import { BillingModule } from '@app/billing';
import { DataPolicyController } from './data-policy.controller';
import { DataPolicyRepository } from './data-policy.repository';
import { DataPolicyService } from './data-policy.service';
import { DataProtection } from './data-protection';
import { TeamDataPolicyEntity } from './entities/team-data-policy.entity';

/**
 * Data protection: the teams' data policies (`/api/v1/teams/{id}/data-policy`) and, for every model
 * call, `DataProtection` (global) — residency, and blocking or masking of personal data.
 */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([TeamDataPolicyEntity]), AuthModule, BillingModule, AuditModule],
  controllers: [DataPolicyController],
  providers: [DataPolicyRepository, DataPolicyService, DataProtection],
  exports: [DataProtection],
})
export class DataProtectionModule {}
