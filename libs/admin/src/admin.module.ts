import { Module } from '@nestjs/common';
import { AuthModule } from '@app/auth';
import { BillingModule } from '@app/billing';
import { AdminController } from './admin.controller';
import { AdminService } from './admin.service';
import { BootstrapService } from './bootstrap.service';

@Module({
  imports: [AuthModule, BillingModule],
  controllers: [AdminController],
  providers: [AdminService, BootstrapService],
  exports: [AdminService],
})
export class AdminModule {}
