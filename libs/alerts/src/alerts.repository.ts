import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, In, LessThan, Repository } from 'typeorm';
import { ChangeRecorder, deploymentSecret, RawSql, TransactionRunner } from '@app/database';
import {
  AlertDeliveryAttemptEntity,
  AlertDeliveryEntity,
  AlertEventEntity,
  AlertRuleEntity,
} from './entities/alert.entities';

export interface NewEvent {
  event: AlertEventEntity;
  deliveries: AlertDeliveryEntity[];
}

/** Alert rules, events, deliveries and their attempts. */
@Injectable()
export class AlertsRepository {
  private readonly sql: RawSql;
  private readonly T: { rules: string; events: string; deliveries: string };

  constructor(
    @InjectDataSource() ds: DataSource,
    private readonly tx: TransactionRunner,
    @InjectRepository(AlertRuleEntity) private readonly rules: Repository<AlertRuleEntity>,
    @InjectRepository(AlertEventEntity) private readonly events: Repository<AlertEventEntity>,
    @InjectRepository(AlertDeliveryEntity) private readonly deliveries: Repository<AlertDeliveryEntity>,
    @InjectRepository(AlertDeliveryAttemptEntity) private readonly attempts: Repository<AlertDeliveryAttemptEntity>,
    private readonly audit: ChangeRecorder,
  ) {
    this.sql = new RawSql(ds);
    this.T = {
      rules: this.sql.table(AlertRuleEntity),
      events: this.sql.table(AlertEventEntity),
      deliveries: this.sql.table(AlertDeliveryEntity),
    };
  }

  // ── rules ──────────────────────────────────────────────────────────────────────────────────────

  /** Inserts the rule with its audit record, in one transaction. */
  async insertRule(row: AlertRuleEntity): Promise<void> {
    await this.tx.run(async (m) => {
      await m.insert(AlertRuleEntity, { ...row });
      await this.recordRule(m, 'alert.create', row.teamId, row.id, null, row);
    });
  }

  findRule(teamId: string, id: string): Promise<AlertRuleEntity | null> {
    return this.rules.findOneBy({ teamId, id });
  }

  rulesOf(teamId: string): Promise<AlertRuleEntity[]> {
    return this.rules.find({ where: { teamId }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  enabledRules(teamId?: string): Promise<AlertRuleEntity[]> {
    return this.rules.find({ where: teamId ? { teamId, enabled: 1 } : { enabled: 1 } });
  }

  /** Applies the patch with its audit record (before and after), in one transaction. */
  async updateRule(teamId: string, id: string, patch: Partial<AlertRuleEntity>): Promise<void> {
    await this.tx.run(async (m) => {
      const before = await m.findOneBy(AlertRuleEntity, { teamId, id });
      if (!before) return;
      await m.update(AlertRuleEntity, { teamId, id }, patch);
      const after = await m.findOneByOrFail(AlertRuleEntity, { teamId, id });
      await this.recordRule(m, 'alert.update', teamId, id, before, after);
    });
  }

  /** Deletes the rule with its audit record, in one transaction. */
  async deleteRule(teamId: string, id: string): Promise<boolean> {
    return this.tx.run(async (m) => {
      const before = await m.findOneBy(AlertRuleEntity, { teamId, id });
      const out = await m.delete(AlertRuleEntity, { teamId, id });
      if ((out.affected ?? 0) === 0 || !before) return false;
      await this.recordRule(m, 'alert.delete', teamId, id, before, null);
      return true;
    });
  }

  /** A rule as its audit records show it: kind, thresholds, state and channel types — never a URL, address or token. */
  private recordRule(
    m: EntityManager,
    action: string,
    teamId: string,
    id: string,
    before: AlertRuleEntity | null,
    after: AlertRuleEntity | null,
  ): Promise<void> {
    const view = (r: AlertRuleEntity | null) =>
      r && {
        kind: r.kind,
        params: JSON.parse(r.params) as unknown,
        enabled: r.enabled === 1,
        channels: (JSON.parse(r.channels) as { type: string }[]).map((c) => c.type),
      };
    return this.audit.record(m, {
      teamId,
      action,
      targetType: 'alert',
      targetId: id,
      before: view(before),
      after: view(after),
    });
  }

  /** Starts the next crossing of a rule whose value recovered; false when another replica did it first. */
  async rearm(ruleId: string, crossing: number, now: number): Promise<boolean> {
    const { rows } = await this.sql.exec(
      `UPDATE ${this.T.rules} SET crossing = $1, updated_at = $2 WHERE id = $3 AND crossing = $4 RETURNING id`,
      [crossing + 1, now, ruleId, crossing],
    );
    return rows.length > 0;
  }

  // ── events ─────────────────────────────────────────────────────────────────────────────────────

  /**
   * Records the event unless one exists for its (rule, threshold, period key) — the insert-or-ignore
   * every replica may race on — and, only for the one that inserted it, its deliveries. True when
   * this call recorded it.
   */
  async insertEventOnce(e: NewEvent): Promise<boolean> {
    return this.tx.run(async (m) => {
      const { rows } = await this.sql.exec(
        `INSERT INTO ${this.T.events} (id, rule_id, team_id, kind, threshold, period_key, payload, fired_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (rule_id, threshold, period_key) DO NOTHING RETURNING id`,
        [
          e.event.id,
          e.event.ruleId,
          e.event.teamId,
          e.event.kind,
          e.event.threshold,
          e.event.periodKey,
          e.event.payload,
          e.event.firedAt,
        ],
        m,
      );
      if (rows.length === 0) return false;
      if (e.deliveries.length) await m.getRepository(AlertDeliveryEntity).insert(e.deliveries);
      return true;
    });
  }

  async eventExists(ruleId: string, threshold: string, periodKey: string): Promise<boolean> {
    return (await this.events.countBy({ ruleId, threshold, periodKey })) > 0;
  }

  /** Newest first. */
  listEvents(teamId: string, q: { ruleId?: string; before?: number; limit: number }): Promise<AlertEventEntity[]> {
    return this.events.find({
      where: {
        teamId,
        ...(q.ruleId ? { ruleId: q.ruleId } : {}),
        ...(q.before !== undefined ? { firedAt: LessThan(q.before) } : {}),
      },
      order: { firedAt: 'DESC', id: 'DESC' },
      take: q.limit,
    });
  }

  deliveriesOf(eventIds: string[]): Promise<AlertDeliveryEntity[]> {
    if (eventIds.length === 0) return Promise.resolve([]);
    return this.deliveries.find({ where: { eventId: In(eventIds) }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  attemptsOf(deliveryIds: string[]): Promise<AlertDeliveryAttemptEntity[]> {
    if (deliveryIds.length === 0) return Promise.resolve([]);
    return this.attempts.find({ where: { deliveryId: In(deliveryIds) }, order: { attempt: 'ASC' } });
  }

  findEvent(id: string): Promise<AlertEventEntity | null> {
    return this.events.findOneBy({ id });
  }

  // ── deliveries ─────────────────────────────────────────────────────────────────────────────────

  /**
   * Claims up to `limit` due deliveries for `leaseMs` (one replica sends each attempt): pending,
   * due, and not leased by a live attempt elsewhere.
   */
  async claimDue(now: number, leaseMs: number, limit: number): Promise<AlertDeliveryEntity[]> {
    const candidates = await this.sql.exec(
      `SELECT id FROM ${this.T.deliveries} WHERE status = 'pending' AND next_attempt_at <= $1
         AND (lease_until IS NULL OR lease_until < $1) ORDER BY next_attempt_at LIMIT $2`,
      [now, limit],
    );
    const claimed: string[] = [];
    for (const row of candidates.rows) {
      const { rows } = await this.sql.exec(
        `UPDATE ${this.T.deliveries} SET lease_until = $1 WHERE id = $2 AND status = 'pending'
           AND (lease_until IS NULL OR lease_until < $3) RETURNING id`,
        [now + leaseMs, String(row.id), now],
      );
      if (rows.length) claimed.push(String(row.id));
    }
    if (claimed.length === 0) return [];
    return this.deliveries.findBy({ id: In(claimed) });
  }

  /** Records an attempt and the delivery's new state, in one transaction. */
  async recordAttempt(
    attempt: AlertDeliveryAttemptEntity,
    next: Pick<AlertDeliveryEntity, 'status' | 'attempts' | 'nextAttemptAt' | 'lastError' | 'deliveredAt'>,
  ): Promise<void> {
    await this.tx.run(async (m) => {
      await m.getRepository(AlertDeliveryAttemptEntity).insert(attempt);
      await m.getRepository(AlertDeliveryEntity).update({ id: attempt.deliveryId }, { ...next, leaseUntil: null });
    });
  }

  // ── deployment secret ──────────────────────────────────────────────────────────────────────────

  /** The named per-deployment secret (gateway_secrets), created once with `candidate` and shared by replicas. */
  secret(name: string, candidate: string, now: number): Promise<string> {
    return deploymentSecret(this.sql, name, candidate, now);
  }
}
