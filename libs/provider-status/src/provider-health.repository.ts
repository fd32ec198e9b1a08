import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { RawSql } from '@app/database';
import { RequestLogEntity } from '@app/request-log/entities/request-log.entity';

/** One served call: which provider, its HTTP status, its latency and when. */
export interface CallSample {
  provider: string;
  status: number;
  latencyMs: number;
  createdAt: number;
}

/** The most calls read for one health view (the newest ones). */
export const HEALTH_SAMPLE_LIMIT = 200_000;

/** Reads the request log's provider calls for the operator's health view. */
@Injectable()
export class ProviderHealthRepository {
  private readonly sql: RawSql;
  private readonly table: string;

  constructor(@InjectDataSource() ds: DataSource) {
    this.sql = new RawSql(ds);
    this.table = this.sql.table(RequestLogEntity);
  }

  async callsSince(since: number): Promise<CallSample[]> {
    const { rows } = await this.sql.exec(
      `SELECT provider, status, latency_ms, created_at FROM ${this.table}
       WHERE created_at >= $1 AND provider IS NOT NULL ORDER BY created_at DESC LIMIT $2`,
      [since, HEALTH_SAMPLE_LIMIT],
    );
    return rows.map((r) => ({
      provider: String(r.provider),
      status: Number(r.status),
      latencyMs: Number(r.latency_ms),
      createdAt: Number(r.created_at),
    }));
  }
}
