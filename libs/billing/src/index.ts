export * from './billing.module';
export * from './billing.service';
export * from './teams.service';
export * from './pricing';
export * from './usage-summary.service';
export * from './dto/billing.dto';
export type { TopUpExtra } from './billing.repository';
