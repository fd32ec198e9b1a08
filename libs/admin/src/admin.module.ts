import { Module } from '@nestjs/common';
import { AuthModule } from '@app/auth';
import { AuditModule } from '@app/accounts/audit';
import { BillingModule } from '@app/billing';
import { AdminController } from './admin.controller';
import { AdminService } from './admin.service';
import { BootstrapService } from './bootstrap.service';
import { ReportsController } from './reports/reports.controller';
import { ReportsRepository } from './reports/reports.repository';
import { ReportsService } from './reports/reports.service';

@Module({
  imports: [AuthModule, BillingModule, AuditModule],
  controllers: [AdminController, ReportsController],
  providers: [AdminService, BootstrapService, ReportsService, ReportsRepository],
  exports: [AdminService, BootstrapService],
})
export class AdminModule {}
