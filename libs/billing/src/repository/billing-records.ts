import type { EntityManager } from 'typeorm';
import type { TeamEntity } from '../entities/team.entity';

export interface ChargeRecord {
  requestId: string;
  apiKeyId: string | null;
  endpoint: string;
  model: string | null;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  details: string | null;
  /**
   * The charge's own key (the ledger's `reference`, unique per team): work that may run again (an
   * ingestion re-run after its replica died) is charged once. null: the reservation is the key.
   */
  reference?: string | null;
  /** USD-priced models: the CBR rate (RUB per USD, as a decimal string) and its date the charge used */
  fxRate?: string | null;
  fxDate?: string | null;
}

/** A budget a reservation must fit in: period 'd:YYYY-MM-DD' / 'm:YYYY-MM' (UTC), [start, end) in epoch ms. */
export interface BudgetPeriod {
  period: string;
  capMicro: number;
  start: number;
  end: number;
}

export interface BudgetRefusal {
  period: BudgetPeriod;
  spentMicro: number;
  heldMicro: number;
}

export type ReserveOutcome = { ok: true } | { ok: false; team: TeamEntity | null; budget?: BudgetRefusal };

export type SummaryGroup = 'model' | 'day' | 'key' | 'endpoint';

export interface SummaryRow {
  group: string | number | null;
  requests: number;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  spentMicro: number;
}

export type SettleOutcome =
  | { ok: true; chargedMicro: number; balanceAfterMicro: number; ledgerId: number }
  | { ok: false; status: string | null };
export type TopUpOutcome = { applied: boolean; balanceMicro: number } | null;

/** `request_id` of the reservation rows that are credit grants to a replica (not one request's hold). */
export const CREDIT_GRANT_REQUEST = 'credit-grant';

/** What a top-up may carry besides its amount. */
export interface TopUpExtra {
  /** JSON stored in the ledger entry's details (e.g. the note and who made it) */
  details?: string | null;
  /** runs inside the top-up's transaction after it is applied */
  within?: (m: EntityManager, balanceMicro: number) => Promise<void>;
}

/** A charge's ledger columns in statement order: request, key, endpoint, model, tokens × 3, details. */
export function ledgerColumns(c: ChargeRecord): (string | number | null)[] {
  return [c.requestId, c.apiKeyId, c.endpoint, c.model, c.promptTokens, c.completionTokens, c.totalTokens, c.details];
}

/** The ledger's fx_rate and fx_date of a charge: the CBR rate a USD-priced model was charged at. */
export const fxColumns = (c: ChargeRecord): [string | null, string | null] => [c.fxRate ?? null, c.fxDate ?? null];

/** The ledger's reference column of a charge: its own key, or none (the reservation keys it). */
export const chargeReference = (c: ChargeRecord): string | null => c.reference ?? null;

export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: unknown; driverError?: { code?: unknown }; message?: unknown };
  const code = e?.driverError?.code ?? e?.code;
  return (
    code === '23505' ||
    code === 'SQLITE_CONSTRAINT_UNIQUE' ||
    (typeof e?.message === 'string' && /UNIQUE constraint failed/.test(e.message))
  );
}

/** A hold to take (BillingRepository.reserve): the team's, and the key's budgets when it has any. */
export interface HoldRequest {
  id: string;
  teamId: string;
  requestId: string;
  amountMicro: number;
  now: number;
  expiresAt: number;
  apiKeyId?: string | null;
  budgets?: BudgetPeriod[];
}

/** A credit grant to ask for (BillingRepository.grantCredit). */
export interface GrantRequest {
  id: string;
  teamId: string;
  wantMicro: number;
  minMicro: number;
  share: number;
  now: number;
  expiresAt: number;
}

/** The charge of a request that held from a credit grant (BillingRepository.chargeFromGrant). */
export interface GrantCharge {
  grantId: string;
  holdId: string;
  teamId: string;
  actualMicro: number;
}
