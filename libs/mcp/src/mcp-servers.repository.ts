import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, Repository } from 'typeorm';
import { ChangeRecorder, deploymentSecret, RawSql, TransactionRunner } from '@app/database';
import { McpServerEntity } from './entities/mcp-server.entity';

/** A team's registered MCP servers; every change with its audit record in one transaction. */
@Injectable()
export class McpServersRepository {
  private readonly sql: RawSql;

  constructor(
    @InjectDataSource() ds: DataSource,
    private readonly tx: TransactionRunner,
    @InjectRepository(McpServerEntity) private readonly servers: Repository<McpServerEntity>,
    private readonly audit: ChangeRecorder,
  ) {
    this.sql = new RawSql(ds);
  }

  /** Inserts the server with its audit record; false when the team has a server of that name. */
  async insert(row: McpServerEntity): Promise<boolean> {
    try {
      return await this.tx.run(async (m) => {
        if (await m.findOneBy(McpServerEntity, { teamId: row.teamId, name: row.name })) return false;
        await m.insert(McpServerEntity, { ...row });
        await this.record(m, 'mcp_server.create', row.teamId, row.id, null, row);
        return true;
      });
    } catch (err) {
      // two registrations of one name racing: the unique (team, name) index lets one in
      if (isUniqueViolation(err)) return false;
      throw err;
    }
  }

  find(teamId: string, id: string): Promise<McpServerEntity | null> {
    return this.servers.findOneBy({ teamId, id });
  }

  findByName(teamId: string, name: string): Promise<McpServerEntity | null> {
    return this.servers.findOneBy({ teamId, name });
  }

  list(teamId: string): Promise<McpServerEntity[]> {
    return this.servers.find({ where: { teamId }, order: { name: 'ASC' } });
  }

  /**
   * Applies the patch with its audit record (before and after); null when the server does not
   * exist, 'name_taken' when the new name is another server's.
   */
  async update(
    teamId: string,
    id: string,
    patch: Partial<McpServerEntity>,
  ): Promise<McpServerEntity | null | 'name_taken'> {
    return this.tx.run(async (m) => {
      const before = await m.findOneBy(McpServerEntity, { teamId, id });
      if (!before) return null;
      if (patch.name !== undefined && patch.name !== before.name) {
        const other = await m.findOneBy(McpServerEntity, { teamId, name: patch.name });
        if (other) return 'name_taken';
      }
      await m.update(McpServerEntity, { teamId, id }, patch);
      const after = await m.findOneByOrFail(McpServerEntity, { teamId, id });
      await this.record(m, 'mcp_server.update', teamId, id, before, after);
      return after;
    });
  }

  /** The tools last read from the server and its status (not an audited change: the server's own state). */
  async setTools(
    teamId: string,
    id: string,
    state: Pick<McpServerEntity, 'status' | 'statusError' | 'tools' | 'toolsRefreshedAt' | 'updatedAt'>,
  ): Promise<void> {
    await this.servers.update({ teamId, id }, state);
  }

  async delete(teamId: string, id: string): Promise<boolean> {
    return this.tx.run(async (m) => {
      const before = await m.findOneBy(McpServerEntity, { teamId, id });
      if (!before) return false;
      await m.delete(McpServerEntity, { teamId, id });
      await this.record(m, 'mcp_server.delete', teamId, id, before, null);
      return true;
    });
  }

  /** The named per-deployment secret (gateway_secrets), created once with `candidate` and shared by replicas. */
  secret(name: string, candidate: string, now: number): Promise<string> {
    return deploymentSecret(this.sql, name, candidate, now);
  }

  /** A server as its audit records show it: never a header value, only the header names. */
  private record(
    m: EntityManager,
    action: string,
    teamId: string,
    id: string,
    before: McpServerEntity | null,
    after: McpServerEntity | null,
  ): Promise<void> {
    const view = (r: McpServerEntity | null) =>
      r && {
        name: r.name,
        url: r.url,
        transport: r.transport,
        header_names: Object.keys(JSON.parse(r.headers) as Record<string, string>),
        description: r.description,
        price_per_call_micro: r.pricePerCallMicro,
      };
    return this.audit.record(m, {
      teamId,
      action,
      targetType: 'mcp_server',
      targetId: id,
      before: view(before),
      after: view(after),
    });
  }
}

function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown };
  return (
    e.code === '23505' || e.code === 'SQLITE_CONSTRAINT_UNIQUE' || /UNIQUE constraint failed/.test(String(e.message))
  );
}
