import { Module } from '@nestjs/common';
import { AuthModule } from '@app/auth';
import { AuditModule } from '@app/accounts/audit';
import { BillingModule } from '@app/billing';
import { AdminController } from './admin.controller';
import { AdminService } from './admin.service';
import { BootstrapService } from './bootstrap.service';

@Module({
  imports: [AuthModule, BillingModule, AuditModule],
  controllers: [AdminController],
  providers: [AdminService, BootstrapService],
  exports: [AdminService, BootstrapService],
})
export class AdminModule {}
