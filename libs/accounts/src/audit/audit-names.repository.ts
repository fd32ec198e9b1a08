import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { RawSql } from '@app/database';

export interface UserName {
  email: string;
  name: string;
}

/** Readable names for the ids an audit page mentions, looked up once per page. */
export interface AuditNames {
  users: Map<string, UserName>;
  keys: Map<string, { name: string | null; prefix: string }>;
  teams: Map<string, string>;
  invitations: Map<string, string>;
}

export interface AuditNameRequest {
  users: Iterable<string>;
  keys: Iterable<string>;
  teams: Iterable<string>;
  invitations: Iterable<string>;
}

/** Ids per query: far below both drivers' parameter limits. */
const CHUNK = 500;

/**
 * Read model of the audit log: the e-mail and name of users, the name of API keys, teams and the
 * e-mail of invitations the records point at (deleted teams and revoked keys keep their names).
 */
@Injectable()
export class AuditNamesRepository {
  private readonly raw: RawSql;

  constructor(@InjectDataSource() ds: DataSource) {
    this.raw = new RawSql(ds);
  }

  async resolve(req: AuditNameRequest): Promise<AuditNames> {
    const [users, keys, teams, invitations] = await Promise.all([
      this.rows('users', 'id, email, name', req.users),
      this.rows('api_keys', 'id, name, prefix', req.keys),
      this.rows('teams', 'id, name', req.teams),
      this.rows('invitations', 'id, email', req.invitations),
    ]);
    return {
      users: new Map(users.map((r) => [String(r.id), { email: String(r.email), name: String(r.name ?? '') }])),
      keys: new Map(
        keys.map((r) => [String(r.id), { name: r.name === null ? null : String(r.name), prefix: String(r.prefix) }]),
      ),
      teams: new Map(teams.map((r) => [String(r.id), String(r.name)])),
      invitations: new Map(invitations.map((r) => [String(r.id), String(r.email)])),
    };
  }

  /** The ids of the users with this e-mail (stored lower-case): zero or one. */
  async userIdsByEmail(email: string): Promise<string[]> {
    const { rows } = await this.raw.exec(`SELECT id FROM ${this.raw.table('users')} WHERE email = $1`, [
      email.toLowerCase(),
    ]);
    return rows.map((r) => String(r.id));
  }

  private async rows(table: string, columns: string, ids: Iterable<string>): Promise<Record<string, unknown>[]> {
    const all = [...new Set(ids)];
    const out: Record<string, unknown>[] = [];
    for (let i = 0; i < all.length; i += CHUNK) {
      const part = all.slice(i, i + CHUNK);
      const marks = part.map((_, j) => `$${j + 1}`).join(', ');
      const { rows } = await this.raw.exec(
        `SELECT ${columns} FROM ${this.raw.table(table)} WHERE id IN (${marks})`,
        part,
      );
      out.push(...rows);
    }
    return out;
  }
}
