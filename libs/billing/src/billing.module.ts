import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuthModule } from '@app/auth';
import { BillingController } from './billing.controller';
import { BillingRepository } from './billing.repository';
import { BillingService } from './billing.service';
import { BillingSpool } from './billing-spool';
import { AppConfig } from '@app/config';
import { PricingService } from './pricing/pricing.service';
import { LedgerEntryEntity } from './entities/ledger-entry.entity';
import { ReservationEntity } from './entities/reservation.entity';
import { TeamEntity } from './entities/team.entity';
import { ApiKeySpendEntity } from './entities/api-key-spend.entity';
import { GovernanceModule } from '@app/governance';
import { TeamsService } from './teams.service';
import { UsageSummaryService } from './usage-summary.service';
import { KeyNamesRepository } from './key-names.repository';
import { ReconciliationRepository } from './reconciliation.repository';

@Module({
  imports: [
    TypeOrmModule.forFeature([TeamEntity, ReservationEntity, LedgerEntryEntity, ApiKeySpendEntity]),
    AuthModule,
    GovernanceModule,
  ],
  controllers: [BillingController],
  providers: [
    BillingRepository,
    ReconciliationRepository,
    BillingService,
    TeamsService,
    PricingService,
    UsageSummaryService,
    KeyNamesRepository,
    // the durable outbox of billing writes, under DATA_DIR (one per database)
    { provide: BillingSpool, useFactory: (config: AppConfig) => BillingSpool.forConfig(config), inject: [AppConfig] },
  ],
  exports: [BillingService, TeamsService, PricingService, UsageSummaryService],
})
export class BillingModule {}
