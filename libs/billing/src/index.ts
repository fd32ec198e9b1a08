export * from './billing.module';
export * from './billing.service';
export * from './teams.service';
export * from './pricing.service';
