import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuthModule } from '@app/auth';
import { BillingController } from './billing.controller';
import { BillingRepository } from './billing.repository';
import { BillingService } from './billing.service';
import { PricingService } from './pricing.service';
import { LedgerEntryEntity } from './entities/ledger-entry.entity';
import { ReservationEntity } from './entities/reservation.entity';
import { TeamEntity } from './entities/team.entity';
import { TeamsService } from './teams.service';

@Module({
  imports: [TypeOrmModule.forFeature([TeamEntity, ReservationEntity, LedgerEntryEntity]), AuthModule],
  controllers: [BillingController],
  providers: [BillingRepository, BillingService, TeamsService, PricingService],
  exports: [BillingService, TeamsService, PricingService],
})
export class BillingModule {}
