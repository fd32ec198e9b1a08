import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { ApiError, Clock, microToRub } from '@app/common';
import { AppConfig } from '@app/config';
import { ApiKeysService } from '@app/auth';
import { BillingService } from '@app/billing';
import { RequestOutcomes } from '@app/request-log';
import {
  budgetPeriodKey,
  crossingKey,
  errorRateOver,
  newAlertId,
  reachedPercents,
  type BudgetParams,
  type ErrorRateParams,
  type RuleParams,
  type StoredChannel,
} from './alert-rules';
import { AlertDeliveries } from './alert-deliveries';
import { alertTexts } from './alert-texts';
import { AlertsRepository } from './alerts.repository';
import { AlertRuleEntity } from './entities/alert.entities';

/** The stored message is English; deliveries say it in their channel's language (alert-texts.ts). */
const EN = alertTexts('en');
/** Charges of a team within this are evaluated together. */
const CHARGE_DEBOUNCE_MS = 100;
/** Remembered fired (rule, threshold, period) keys per process, so a held condition costs no write. */
const MAX_REMEMBERED = 10_000;

/** What one evaluation pass reads, once per team / key. */
class Observations {
  private readonly cache = new Map<string, Promise<unknown>>();
  constructor(
    private readonly billing: BillingService,
    private readonly keys: ApiKeysService,
    private readonly requests: RequestOutcomes,
  ) {}

  private once<T>(key: string, read: () => Promise<T>): Promise<T> {
    if (!this.cache.has(key)) this.cache.set(key, read());
    return this.cache.get(key) as Promise<T>;
  }
  balance(teamId: string) {
    return this.once(`b:${teamId}`, () => this.billing.balance(teamId));
  }
  teamSpend(teamId: string) {
    return this.once(`t:${teamId}`, () => this.billing.teamSpend(teamId));
  }
  keySpend(apiKeyId: string) {
    return this.once(`k:${apiKeyId}`, () => this.billing.keySpend(apiKeyId));
  }
  key(apiKeyId: string) {
    return this.once(`K:${apiKeyId}`, () => this.keys.get(apiKeyId).catch(() => null));
  }
  outcomes(teamId: string, since: number) {
    return this.once(`o:${teamId}:${since}`, () => this.requests.since(teamId, since));
  }
}

/**
 * Evaluates alert rules: a team's balance and budget rules shortly after its charges commit (told
 * by BillingService, never delaying the charge), and every enabled rule on every replica each
 * ALERTS_EVAL_INTERVAL_MS (error rates, top-ups that re-arm a balance rule, charges made elsewhere).
 * A reached threshold is recorded with an insert-or-ignore of (rule, threshold, period key), so it
 * fires once across replicas; the replica whose insert won queues the deliveries.
 */
@Injectable()
export class AlertEngine implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('AlertEngine');
  private readonly dirty = new Set<string>();
  private readonly fired = new Set<string>();
  private flushTimer: NodeJS.Timeout | null = null;
  private sweepTimer?: NodeJS.Timeout;
  private sweeping: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly repo: AlertsRepository,
    private readonly billing: BillingService,
    private readonly keys: ApiKeysService,
    private readonly requests: RequestOutcomes,
    private readonly deliveries: AlertDeliveries,
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  onModuleInit(): void {
    this.billing.onCharged((teamId) => this.charged(teamId));
    this.sweepTimer = setInterval(() => void this.sweep(), this.config.alerts.evalIntervalMs);
    this.sweepTimer.unref();
  }

  onModuleDestroy(): void {
    this.stopped = true;
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    if (this.flushTimer) clearTimeout(this.flushTimer);
  }

  /** A charge of `teamId` committed: its balance and budget rules are evaluated shortly. */
  private charged(teamId: string): void {
    this.dirty.add(teamId);
    if (this.flushTimer || this.stopped) return;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = null;
      const teams = [...this.dirty];
      this.dirty.clear();
      void this.evaluateTeams(teams, ['balance_below', 'budget_used']);
    }, CHARGE_DEBOUNCE_MS);
    this.flushTimer.unref();
  }

  /** Every enabled rule, now (the periodic pass; one at a time per replica). */
  sweep(): Promise<void> {
    this.sweeping ??= (async () => {
      try {
        await this.evaluate(await this.repo.enabledRules(), null);
      } catch (err) {
        this.logger.error({ err }, 'alert evaluation pass failed');
      }
    })().finally(() => (this.sweeping = null));
    return this.sweeping;
  }

  private async evaluateTeams(teams: string[], kinds: string[]): Promise<void> {
    for (const teamId of teams) {
      try {
        await this.evaluate(await this.repo.enabledRules(teamId), kinds);
      } catch (err) {
        this.logger.error({ err, teamId }, 'alert evaluation after a charge failed');
      }
    }
  }

  private async evaluate(rules: AlertRuleEntity[], kinds: string[] | null): Promise<void> {
    const seen = new Observations(this.billing, this.keys, this.requests);
    const now = this.clock.now();
    for (const rule of rules) {
      if (this.stopped) return;
      if (kinds && !kinds.includes(rule.kind)) continue;
      try {
        await this.evaluateRule(rule, JSON.parse(rule.params) as RuleParams, seen, now);
      } catch (err) {
        // a deleted team's rules have nothing left to watch
        if (err instanceof ApiError && err.status === 404) continue;
        this.logger.warn({ err, ruleId: rule.id }, 'alert rule evaluation failed');
      }
    }
  }

  private async evaluateRule(rule: AlertRuleEntity, p: RuleParams, seen: Observations, now: number): Promise<void> {
    // read for every kind: a deleted team answers 404, and its rules are skipped
    const { balanceMicro } = await seen.balance(rule.teamId);
    if (p.kind === 'balance_below') {
      const value = microToRub(balanceMicro);
      const threshold = microToRub(p.thresholdMicro);
      const billingUrl = billingPageUrl(this.config.publicBaseUrl, rule.teamId);
      await this.crossing(rule, String(threshold), balanceMicro < p.thresholdMicro, now, {
        value,
        unit: 'RUB',
        billing_url: billingUrl,
        message: EN.balance({ value, threshold, billingUrl }),
      });
    } else if (p.kind === 'budget_used') await this.budget(rule, p, seen, now);
    else await this.errorRate(rule, p, seen, now);
  }

  private async budget(rule: AlertRuleEntity, p: BudgetParams, seen: Observations, now: number): Promise<void> {
    let budgetMicro = p.budgetMicro;
    let spentMicro: number;
    if (p.apiKeyId) {
      const key = await seen.key(p.apiKeyId);
      if (!key || key.teamId !== rule.teamId) return;
      budgetMicro ??= p.period === 'day' ? key.budgetDayMicro : key.budgetMonthMicro;
      const spend = await seen.keySpend(p.apiKeyId);
      spentMicro = p.period === 'day' ? spend.dayMicro : spend.monthMicro;
    } else {
      const spend = await seen.teamSpend(rule.teamId);
      spentMicro = p.period === 'day' ? spend.dayMicro : spend.monthMicro;
    }
    if (budgetMicro === null) return;
    const periodKey = budgetPeriodKey(p.period, now);
    const spent = microToRub(spentMicro);
    const value = Math.round((spentMicro * 10_000) / budgetMicro) / 100;
    for (const percent of reachedPercents(spentMicro, budgetMicro, p.percents))
      await this.fire(rule, String(percent), periodKey, now, {
        value,
        unit: 'percent',
        spent_rub: spent,
        budget_rub: microToRub(budgetMicro),
        api_key_id: p.apiKeyId,
        period: p.period,
        message: EN.budget({
          percent,
          period: p.period,
          apiKeyId: p.apiKeyId,
          spentRub: spent,
          budgetRub: microToRub(budgetMicro),
          value,
        }),
      });
  }

  private async errorRate(rule: AlertRuleEntity, p: ErrorRateParams, seen: Observations, now: number): Promise<void> {
    const windowMs = p.windowMinutes * 60_000;
    const since = Math.floor(now / 1000) * 1000 - windowMs;
    const { total, errors } = await seen.outcomes(rule.teamId, since);
    const rate = total > 0 ? Math.round((errors * 10_000) / total) / 100 : 0;
    await this.crossing(rule, String(p.percent), errorRateOver(errors, total, p), now, {
      value: rate,
      unit: 'percent',
      errors,
      requests: total,
      window_minutes: p.windowMinutes,
      message: EN.errorRate({
        value: rate,
        errors,
        requests: total,
        windowMinutes: p.windowMinutes,
        percent: p.percent,
      }),
    });
  }

  /** A threshold that fires once per crossing: fire while over it, re-arm once it recovered. */
  private async crossing(
    rule: AlertRuleEntity,
    threshold: string,
    over: boolean,
    now: number,
    payload: Record<string, unknown> & { value: number; message: string },
  ): Promise<void> {
    const periodKey = crossingKey(rule.crossing);
    if (over) return this.fire(rule, threshold, periodKey, now, payload);
    if (await this.repo.eventExists(rule.id, threshold, periodKey)) {
      await this.repo.rearm(rule.id, rule.crossing, now);
      this.fired.delete(`${rule.id}|${threshold}|${periodKey}`);
    }
  }

  private async fire(
    rule: AlertRuleEntity,
    threshold: string,
    periodKey: string,
    now: number,
    payload: Record<string, unknown> & { value: number; message: string },
  ): Promise<void> {
    const memo = `${rule.id}|${threshold}|${periodKey}`;
    if (this.fired.has(memo)) return;
    const eventId = newAlertId('ale');
    const channels = JSON.parse(rule.channels) as StoredChannel[];
    const inserted = await this.repo.insertEventOnce({
      event: {
        id: eventId,
        ruleId: rule.id,
        teamId: rule.teamId,
        kind: rule.kind,
        threshold,
        periodKey,
        payload: JSON.stringify(payload),
        firedAt: now,
      },
      deliveries: channels.map((c) => ({
        id: newAlertId('ald'),
        eventId,
        teamId: rule.teamId,
        channelType: c.type,
        channel: JSON.stringify(c),
        status: 'pending',
        attempts: 0,
        nextAttemptAt: now,
        leaseUntil: null,
        lastError: null,
        deliveredAt: null,
        createdAt: now,
      })),
    });
    if (this.fired.size >= MAX_REMEMBERED) this.fired.clear();
    this.fired.add(memo);
    if (inserted) {
      this.logger.log({ ruleId: rule.id, teamId: rule.teamId, threshold, periodKey }, 'alert fired');
      this.deliveries.kick();
    }
  }
}

/** The console's Billing page of a team (absolute with PUBLIC_BASE_URL, else a path on the gateway). */
export function billingPageUrl(publicBaseUrl: string | undefined, teamId: string): string {
  return `${publicBaseUrl ?? ''}/billing?team_id=${teamId}`;
}
