import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { TransactionHook, TransactionRunner } from '@app/database';
import { ApiKeyEntity } from './entities/api-key.entity';

/** A key before and after a change (the hook of a write: its audit record). */
export interface KeyChange {
  before: ApiKeyEntity;
  after: ApiKeyEntity;
}

/** What authentication reads of a key's team: its rate limits and its data policy (JSON text). */
export interface TeamSettings {
  teamRpm: number | null;
  teamTpm: number | null;
  teamPolicy: string | null;
}

interface TeamRow {
  team_rpm: number | string | null;
  team_tpm: number | string | null;
  team_policy: string | null;
}

function teamSettings(row: TeamRow | undefined): TeamSettings {
  const num = (v: number | string | null | undefined) => (v === null || v === undefined ? null : Number(v));
  return { teamRpm: num(row?.team_rpm), teamTpm: num(row?.team_tpm), teamPolicy: row?.team_policy ?? null };
}

@Injectable()
export class ApiKeysRepository {
  constructor(
    @InjectRepository(ApiKeyEntity) private readonly keys: Repository<ApiKeyEntity>,
    private readonly tx: TransactionRunner,
  ) {}

  findByHash(keyHash: string): Promise<ApiKeyEntity | null> {
    return this.keys.findOneBy({ keyHash });
  }

  /** The key with its team's rate limits (one query: what authentication caches). */
  async findForAuth(keyHash: string): Promise<({ key: ApiKeyEntity } & TeamSettings) | null> {
    const { entities, raw } = await this.keys
      .createQueryBuilder('k')
      .leftJoin('teams', 't', 't.id = k.team_id')
      .leftJoin('team_data_policies', 'p', 'p.team_id = k.team_id')
      .addSelect('t.rpm_limit', 'team_rpm')
      .addSelect('t.tpm_limit', 'team_tpm')
      .addSelect('p.policy', 'team_policy')
      .where('k.key_hash = :keyHash', { keyHash })
      .getRawAndEntities<TeamRow>();
    if (!entities[0]) return null;
    return { key: entities[0], ...teamSettings(raw[0]) };
  }

  /** A live team's stored rate limits and data policy; null when there is no such team (or it was deleted). */
  async teamLimits(teamId: string): Promise<TeamSettings | null> {
    const row = await this.keys.manager
      .createQueryBuilder()
      .select('t.rpm_limit', 'team_rpm')
      .addSelect('t.tpm_limit', 'team_tpm')
      .addSelect('p.policy', 'team_policy')
      .from('teams', 't')
      .leftJoin('team_data_policies', 'p', 'p.team_id = t.id')
      .where('t.id = :teamId AND t.deleted_at IS NULL', { teamId })
      .getRawOne<TeamRow>();
    return row ? teamSettings(row) : null;
  }

  listByTeam(teamId: string): Promise<ApiKeyEntity[]> {
    return this.keys.find({ where: { teamId }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  /**
   * Sets the given columns (undefined = unchanged, null = cleared); null when the key does not exist.
   * `within` runs in the same transaction with the key before and after.
   */
  async update(
    id: string,
    patch: Partial<
      Pick<
        ApiKeyEntity,
        | 'name'
        | 'rpmLimit'
        | 'tpmLimit'
        | 'budgetDayMicro'
        | 'budgetMonthMicro'
        | 'expiresAt'
        | 'allowedModels'
        | 'dataPolicy'
        | 'allowedMcpTools'
      >
    >,
    within?: TransactionHook<KeyChange>,
  ): Promise<ApiKeyEntity | null> {
    const set = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
    return this.tx.run(async (m) => {
      const before = await m.findOneBy(ApiKeyEntity, { id });
      if (!before) return null;
      if (Object.keys(set).length > 0) await m.update(ApiKeyEntity, { id }, set);
      const after = await m.findOneByOrFail(ApiKeyEntity, { id });
      await within?.(m, { before, after });
      return after;
    });
  }

  count(): Promise<number> {
    return this.keys.count();
  }

  findById(id: string): Promise<ApiKeyEntity | null> {
    return this.keys.findOneBy({ id });
  }

  /** Inserts the key; `within` runs in the same transaction. */
  async insert(key: ApiKeyEntity, within?: TransactionHook<ApiKeyEntity>): Promise<void> {
    if (!within) return void (await this.keys.insert(key));
    await this.tx.run(async (m) => {
      await m.insert(ApiKeyEntity, { ...key });
      await within(m, key);
    });
  }

  /** Insert unless a key with the same hash exists (idempotent bootstrap across replicas). */
  async insertIfAbsent(key: ApiKeyEntity): Promise<void> {
    await this.keys.createQueryBuilder().insert().into(ApiKeyEntity).values(key).orIgnore().execute();
  }

  /** Revokes the key (once); `within` runs in the same transaction only when this call revoked it. */
  async revoke(id: string, now: number, within?: TransactionHook<KeyChange>): Promise<ApiKeyEntity | null> {
    return this.tx.run(async (m: EntityManager) => {
      const before = await m.findOneBy(ApiKeyEntity, { id });
      if (!before) return null;
      const r = await m
        .createQueryBuilder()
        .update(ApiKeyEntity)
        .set({ revokedAt: now })
        .where('id = :id AND revoked_at IS NULL', { id })
        .execute();
      const after = await m.findOneByOrFail(ApiKeyEntity, { id });
      if ((r.affected ?? 0) > 0) await within?.(m, { before, after });
      return after;
    });
  }

  async touch(id: string, now: number): Promise<void> {
    await this.keys.update({ id }, { lastUsedAt: now });
  }
}
