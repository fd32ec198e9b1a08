import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { RawSql } from '@app/database';

export interface KeyName {
  name: string | null;
  prefix: string;
  createdByEmail: string | null;
}

/** Read model for spend by key: each key's name, display prefix and the e-mail of who created it. */
@Injectable()
export class KeyNamesRepository {
  private readonly raw: RawSql;

  constructor(@InjectDataSource() ds: DataSource) {
    this.raw = new RawSql(ds);
  }

  /** The keys of `teamId` among `ids` (a summary groups at most a team's keys). */
  async forTeam(teamId: string, ids: string[]): Promise<Map<string, KeyName>> {
    const out = new Map<string, KeyName>();
    for (let i = 0; i < ids.length; i += 500) {
      const part = ids.slice(i, i + 500);
      const marks = part.map((_, j) => `$${j + 2}`).join(', ');
      const { rows } = await this.raw.exec(
        `SELECT k.id AS id, k.name AS name, k.prefix AS prefix, u.email AS email FROM ${this.raw.table('api_keys')} k ` +
          `LEFT JOIN ${this.raw.table('users')} u ON u.id = k.created_by WHERE k.team_id = $1 AND k.id IN (${marks})`,
        [teamId, ...part],
      );
      for (const r of rows)
        out.set(String(r.id), {
          name: typeof r.name === 'string' && r.name !== '' ? r.name : null,
          prefix: String(r.prefix),
          createdByEmail: typeof r.email === 'string' ? r.email : null,
        });
    }
    return out;
  }
}
