import type { Caller } from '@app/auth';
import type { FxStamp } from '@app/providers';
import type { BudgetPeriod } from '../billing.repository';

/** A hold on a team's balance for one request in flight. */
export interface Reservation {
  readonly id: string;
  readonly teamId: string;
  readonly requestId: string;
  readonly amountMicro: number;
  /** set when the hold was taken out of this replica's credit grant (no reservation row of its own) */
  readonly grantId?: string;
}

export interface ChargeDetails {
  endpoint: string;
  model: string | null;
  apiKeyId: string | null;
  promptTokens: number;
  completionTokens: number;
  totalTokens?: number;
  /** free-form breakdown stored with the ledger entry (JSON) */
  breakdown?: Record<string, unknown>;
  /** USD-priced models: the CBR rate the prices were converted with (ledger fx_rate, fx_date) */
  fx?: FxStamp | null;
}

/** A keyed charge found already applied: nothing more is charged (see MeterSpec.chargeKey). */
export const ALREADY_CHARGED: SettledCharge = Object.freeze({
  chargedMicro: 0,
  balanceAfterMicro: null,
  ledgerEntryId: null,
  alreadyCharged: true,
});

/**
 * One hold for a request made of several charged steps (a RAG chat: query embeddings, rerank, then
 * the answer), taken before the first of them runs. Each step's meter() takes its own hold out of
 * it instead of the balance (`MeterSpec.within`), so a request the balance cannot cover is refused
 * before anything is paid; what is left is released by the last step or by `close`.
 */
export interface RequestHold {
  readonly reservation: Reservation;
  /** what is still held for the steps to come (µRUB) */
  readonly remainingMicro: number;
  /** Releases what is left; later steps then hold from the balance. Safe to call twice. */
  close(): Promise<void>;
}

/** The key a hold is taken for, with its budgets (µRUB per UTC day / month; null = none). */
export interface KeyBudget {
  apiKeyId: string;
  dayMicro: number | null;
  monthMicro: number | null;
}

export interface SettledCharge {
  chargedMicro: number;
  /** null when the database was unreachable and the charge was spooled (applied when it returns) */
  balanceAfterMicro: number | null;
  ledgerEntryId: number | null;
  /** true when the charge's key was charged before (MeterSpec.chargeKey): this run charged nothing */
  alreadyCharged?: boolean;
}

/** Told about every committed charge (alerts on balance and budgets); see BillingService.onCharged. */
export type ChargeListener = (teamId: string, apiKeyId: string | null) => void;

/** Charges above their hold (provider counts higher than the gateway's estimate), for operators. */
export interface BillingStats {
  overruns: number;
  overrunMicro: number;
  spooled: number;
  spoolPending: number;
}

export interface LedgerView {
  id: number;
  kind: string;
  requestId: string | null;
  reference: string | null;
  endpoint: string | null;
  model: string | null;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  amountMicro: number;
  balanceAfterMicro: number;
  fxRate: string | null;
  fxDate: string | null;
  createdAt: number;
}

/** What the work cost, and what the ledger entry says about it. */
export interface MeteredCharge {
  costMicro: number;
  details: ChargeDetails;
}

export interface MeterSpec<T> {
  teamId: string;
  requestId: string;
  /**
   * The API key the work runs for (its rate limits and budget apply); absent for background work
   * (ingestion), which is governed when its request was admitted.
   */
  caller?: Caller;
  /** the worst case the work may cost (held before it runs; 402 when the balance cannot cover it) */
  holdMicro: number;
  /**
   * Makes the hold flexible: when the balance (or the key's budget, or what the request's hold has
   * left) cannot cover `holdMicro`, as much as it can is held, if that is at least `minMicro`
   * (402 below it). `run` is told the amount held and must keep the work within it.
   */
  minMicro?: number;
  /** tokens known before the call (the prompt), counted against tokens-per-minute limits at admission; the rest is added at settle */
  estimatedTokens?: number;
  /**
   * The request's hold (openRequestHold) this step's hold is taken out of, instead of the balance;
   * `last` releases what is left of it once this step's hold is taken (the answer of a RAG chat).
   */
  within?: { hold: RequestHold; last?: boolean };
  run: (heldMicro: number) => Promise<T>;
  /** the exact charge for a finished run; null charges nothing (the hold is released) */
  charge: (result: T) => MeteredCharge | null;
  /**
   * A run that failed after the provider did billable work (a stream cut after text was delivered):
   * the charge for that part, or null (the hold is released). The error is rethrown either way.
   */
  chargeOnFailure?: (err: unknown) => MeteredCharge | null;
  /**
   * The charge's own key, for work that may run more than once (an ingestion re-run after its
   * replica died): the ledger holds it (unique per team), so the work is charged once. A run whose
   * key is already charged runs without a hold and is not charged (`charged.alreadyCharged`).
   */
  chargeKey?: string;
}

/** The budget periods of a key at `now` (UTC): 'd:YYYY-MM-DD' and 'm:YYYY-MM', each [start, end). */
export function budgetPeriods(key: KeyBudget, now: number): BudgetPeriod[] {
  const d = new Date(now);
  const y = d.getUTCFullYear();
  const mo = d.getUTCMonth();
  const out: BudgetPeriod[] = [];
  if (key.dayMicro !== null) {
    const start = Date.UTC(y, mo, d.getUTCDate());
    out.push({
      period: `d:${new Date(start).toISOString().slice(0, 10)}`,
      capMicro: key.dayMicro,
      start,
      end: start + 86_400_000,
    });
  }
  if (key.monthMicro !== null) {
    const start = Date.UTC(y, mo, 1);
    out.push({
      period: `m:${new Date(start).toISOString().slice(0, 7)}`,
      capMicro: key.monthMicro,
      start,
      end: Date.UTC(y, mo + 1, 1),
    });
  }
  return out;
}
