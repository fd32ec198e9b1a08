import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, LessThan } from 'typeorm';
import { Clock, newId } from '@app/common';
import { ChangeRecorder, RecordedChange, TransactionRunner } from '@app/database';
import { AuditRecord, redact } from './audit';
import { AuditContext } from './audit-context';
import { AuditEntryEntity } from './audit-entry.entity';

export interface AuditFilter {
  teamId?: string;
  actor?: string;
  /** any of these actor ids (a person: their user id, and the e-mail their failed sign-ins name) */
  actors?: string[];
  action?: string;
  targetType?: string;
  target?: string;
  from?: number;
  to?: number;
  /**
   * seq of the last entry of the previous page (newest first). The sequence only grows, so records
   * written while a reader pages land before its first page, never inside the pages still to come.
   */
  before?: number;
}

/**
 * The append-only audit log's repository. `writeIn` writes with the transaction of the change it
 * records (the record exists exactly when the change does); `write` is for events that change
 * nothing else (a failed sign-in); `record` is the ChangeRecorder port: a repository's change made
 * by the actor of the request or command being served. Diffs are redacted before they are stored.
 */
@Injectable()
export class AuditTrail implements ChangeRecorder {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly tx: TransactionRunner,
    private readonly clock: Clock,
  ) {}

  async writeIn(m: EntityManager, r: AuditRecord, now = this.clock.now()): Promise<void> {
    const diff =
      r.before === undefined && r.after === undefined
        ? null
        : JSON.stringify(redact({ before: r.before ?? null, after: r.after ?? null }));
    await m.insert(AuditEntryEntity, {
      id: newId(),
      at: now,
      actorType: r.actor.type,
      actorId: r.actor.id?.slice(0, 320) ?? null,
      ip: r.actor.ip?.slice(0, 64) ?? null,
      userAgent: r.actor.userAgent?.slice(0, 500) ?? null,
      teamId: r.teamId,
      action: r.action,
      targetType: r.targetType,
      targetId: r.targetId?.slice(0, 320) ?? null,
      diff,
    });
  }

  record(m: EntityManager, change: RecordedChange): Promise<void> {
    return this.writeIn(m, { ...change, actor: AuditContext.actor() });
  }

  write(r: AuditRecord): Promise<void> {
    return this.tx.run((m) => this.writeIn(m, r));
  }

  list(f: AuditFilter, limit: number): Promise<AuditEntryEntity[]> {
    const q = this.ds.getRepository(AuditEntryEntity).createQueryBuilder('a');
    if (f.teamId) q.andWhere('a.team_id = :teamId', { teamId: f.teamId });
    if (f.actor) q.andWhere('a.actor_id = :actor', { actor: f.actor });
    if (f.actors) q.andWhere('a.actor_id IN (:...actors)', { actors: f.actors.length ? f.actors : [''] });
    if (f.action) q.andWhere('a.action = :action', { action: f.action });
    if (f.targetType) q.andWhere('a.target_type = :targetType', { targetType: f.targetType });
    if (f.target) q.andWhere('a.target_id = :target', { target: f.target });
    if (f.from !== undefined) q.andWhere('a.at >= :from', { from: f.from });
    if (f.to !== undefined) q.andWhere('a.at < :to', { to: f.to });
    if (f.before !== undefined) q.andWhere('a.seq < :before', { before: f.before });
    return q.orderBy('a.seq', 'DESC').limit(limit).getMany();
  }

  /** Retention: drops records older than `at`. */
  async deleteBefore(at: number): Promise<number> {
    const r = await this.ds.getRepository(AuditEntryEntity).delete({ at: LessThan(at) });
    return r.affected ?? 0;
  }
}
