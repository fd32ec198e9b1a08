import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { RawSql } from '@app/database';
import { LedgerEntryEntity } from '@app/billing/entities/ledger-entry.entity';
import { TeamEntity } from '@app/billing/entities/team.entity';
import { UserEntity } from '@app/accounts/entities/user.entity';

const DAY_MS = 86_400_000;

export interface TeamDayRow {
  day: number;
  teamId: string;
  teamName: string;
  requests: number;
  spentMicro: number;
}
export interface ModelRow {
  model: string | null;
  requests: number;
  totalTokens: number;
  spentMicro: number;
}
export interface TopUpRow {
  id: number;
  amountMicro: number;
  balanceAfterMicro: number;
  reference: string | null;
  details: string | null;
  createdAt: number;
}

/** Cross-team reads over the ledger for the operator (GROUP BY in the database; sums equal the ledger's). */
@Injectable()
export class ReportsRepository {
  private readonly sql: RawSql;
  private readonly T: { ledger: string; teams: string; users: string };

  constructor(@InjectDataSource() ds: DataSource) {
    this.sql = new RawSql(ds);
    this.T = {
      ledger: this.sql.table(LedgerEntryEntity),
      teams: this.sql.table(TeamEntity),
      users: this.sql.table(UserEntity),
    };
  }

  /** Charges per team and UTC day over [from, to). */
  async spendByTeamDay(from: number, to: number): Promise<TeamDayRow[]> {
    const day = `l.created_at / ${DAY_MS}`;
    const { rows } = await this.sql.exec(
      `SELECT ${day} AS day, l.team_id AS team_id, t.name AS team_name, COUNT(*) AS requests,
              COALESCE(-SUM(l.amount_micro), 0) AS spent_micro
       FROM ${this.T.ledger} l JOIN ${this.T.teams} t ON t.id = l.team_id
       WHERE l.kind = 'charge' AND l.created_at >= $1 AND l.created_at < $2
       GROUP BY ${day}, l.team_id, t.name ORDER BY ${day}, t.name`,
      [from, to],
    );
    return rows.map((r) => ({
      day: Number(r.day),
      teamId: String(r.team_id),
      teamName: String(r.team_name),
      requests: Number(r.requests),
      spentMicro: Number(r.spent_micro),
    }));
  }

  /** The `limit` models with the highest spend over [from, to), every team together. */
  async topModels(from: number, to: number, limit: number): Promise<ModelRow[]> {
    const { rows } = await this.sql.exec(
      `SELECT model, COUNT(*) AS requests, COALESCE(SUM(total_tokens), 0) AS total_tokens,
              COALESCE(-SUM(amount_micro), 0) AS spent_micro
       FROM ${this.T.ledger}
       WHERE kind = 'charge' AND created_at >= $1 AND created_at < $2
       GROUP BY model ORDER BY spent_micro DESC, requests DESC LIMIT $3`,
      [from, to, limit],
    );
    return rows.map((r) => ({
      model: r.model === null || r.model === undefined ? null : String(r.model),
      requests: Number(r.requests),
      totalTokens: Number(r.total_tokens),
      spentMicro: Number(r.spent_micro),
    }));
  }

  /** A team's top-ups, newest first, before the cursor (a ledger entry id). */
  async topUps(teamId: string, limit: number, before?: number): Promise<TopUpRow[]> {
    const { rows } = await this.sql.exec(
      `SELECT id, amount_micro, balance_after_micro, reference, details, created_at FROM ${this.T.ledger}
       WHERE team_id = $1 AND kind = 'top_up'${before !== undefined ? ' AND id < $3' : ''}
       ORDER BY id DESC LIMIT $2`,
      before !== undefined ? [teamId, limit, before] : [teamId, limit],
    );
    return rows.map((r) => ({
      id: Number(r.id),
      amountMicro: Number(r.amount_micro),
      balanceAfterMicro: Number(r.balance_after_micro),
      reference: r.reference === null || r.reference === undefined ? null : String(r.reference),
      details: r.details === null || r.details === undefined ? null : String(r.details),
      createdAt: Number(r.created_at),
    }));
  }

  /** E-mails of the given users, by id. */
  async emails(ids: string[]): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    const params = ids.map((_, i) => `$${i + 1}`).join(', ');
    const { rows } = await this.sql.exec(`SELECT id, email FROM ${this.T.users} WHERE id IN (${params})`, ids);
    return new Map(rows.map((r) => [String(r.id), String(r.email)]));
  }
}
