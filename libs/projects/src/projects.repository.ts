import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, LessThan, Repository } from 'typeorm';
import { ChangeRecorder, deploymentSecret, RawSql, TransactionRunner } from '@app/database';
import {
  ProjectEntity,
  ProjectIntegrationEntity,
  ProjectMaterialEntity,
  WebhookEventEntity,
} from './entities/project.entities';
import type { MaterialKind } from '@app/chat/context/ports';

export interface PageQuery {
  after?: string;
  limit: number;
  order: 'asc' | 'desc';
}

/** Projects, their materials, integrations and webhook events. */
@Injectable()
export class ProjectsRepository {
  private readonly sql: RawSql;
  private readonly T: { integrations: string; projects: string };

  constructor(
    @InjectDataSource() ds: DataSource,
    private readonly tx: TransactionRunner,
    @InjectRepository(ProjectEntity) private readonly projects: Repository<ProjectEntity>,
    @InjectRepository(ProjectMaterialEntity) private readonly materials: Repository<ProjectMaterialEntity>,
    @InjectRepository(ProjectIntegrationEntity) private readonly integrations: Repository<ProjectIntegrationEntity>,
    @InjectRepository(WebhookEventEntity) private readonly events: Repository<WebhookEventEntity>,
    private readonly audit: ChangeRecorder,
  ) {
    this.sql = new RawSql(ds);
    this.T = { integrations: this.sql.table(ProjectIntegrationEntity), projects: this.sql.table(ProjectEntity) };
  }

  // ── projects ───────────────────────────────────────────────────────────────────────────────────

  /** Inserts the project with its audit record, in one transaction. */
  async insertProject(row: Omit<ProjectEntity, 'seq'>): Promise<void> {
    await this.tx.run(async (m) => {
      await m.insert(ProjectEntity, { ...row });
      await this.recordProject(m, 'project.create', row.teamId, row.id, null, row);
    });
  }

  findProject(teamId: string, id: string): Promise<ProjectEntity | null> {
    return this.projects.findOneBy({ teamId, id });
  }

  async listProjects(teamId: string, q: PageQuery): Promise<ProjectEntity[]> {
    const qb = this.projects.createQueryBuilder('p').where('p.team_id = :teamId', { teamId });
    if (q.after) {
      const cursor = await this.projects.findOneBy({ teamId, id: q.after });
      if (!cursor) return [];
      qb.andWhere(q.order === 'desc' ? 'p.seq < :seq' : 'p.seq > :seq', { seq: cursor.seq });
    }
    return qb
      .orderBy('p.seq', q.order === 'desc' ? 'DESC' : 'ASC')
      .limit(q.limit + 1)
      .getMany();
  }

  /** Applies the patch with its audit record (before and after), in one transaction. */
  async updateProject(teamId: string, id: string, patch: Partial<ProjectEntity>): Promise<void> {
    await this.tx.run(async (m) => {
      const before = await m.findOneBy(ProjectEntity, { teamId, id });
      if (!before) return;
      await m.update(ProjectEntity, { teamId, id }, patch);
      const after = await m.findOneByOrFail(ProjectEntity, { teamId, id });
      await this.recordProject(m, 'project.update', teamId, id, before, after);
    });
  }

  private recordProject(
    m: EntityManager,
    action: string,
    teamId: string,
    id: string,
    before: Omit<ProjectEntity, 'seq'> | null,
    after: Omit<ProjectEntity, 'seq'> | null,
  ): Promise<void> {
    const view = (p: Omit<ProjectEntity, 'seq'> | null) =>
      p && { name: p.name, description: p.description, mode: p.mode, rag: JSON.parse(p.rag) as unknown };
    return this.audit.record(m, {
      teamId,
      action,
      targetType: 'project',
      targetId: id,
      before: view(before),
      after: view(after),
    });
  }

  /** A material's audit record (what it is, never its content or an integration's secrets). */
  private recordMaterial(m: EntityManager, action: string, row: Omit<ProjectMaterialEntity, 'seq'>): Promise<void> {
    const view = {
      project_id: row.projectId,
      kind: row.kind,
      title: row.title,
      url: row.url,
      document_id: row.documentId,
      knowledge_base_id: row.knowledgeBaseId,
      integration_id: row.integrationId,
    };
    const deleted = action.endsWith('.delete');
    return this.audit.record(m, {
      teamId: row.teamId,
      action,
      targetType: 'material',
      targetId: row.id,
      before: deleted ? view : null,
      after: deleted ? null : view,
    });
  }

  /**
   * The lock order of every write transaction under a project: the project row first (deleting the
   * project deletes it first), then its materials, integrations and events. So a material added or
   * deleted while the project is deleted waits for it, then finds the project gone (false) instead
   * of deadlocking or leaving an orphan row.
   */
  private lockProject(m: EntityManager, id: string): Promise<boolean> {
    return this.sql.lockRow(this.T.projects, id, m);
  }

  /** The project, its materials, integrations and their events, in one transaction. */
  deleteProject(teamId: string, id: string): Promise<boolean> {
    return this.tx.run(async (m) => {
      const before = await m.findOneBy(ProjectEntity, { teamId, id });
      const res = await m.delete(ProjectEntity, { teamId, id });
      if ((res.affected ?? 0) === 0 || !before) return false;
      await this.recordProject(m, 'project.delete', teamId, id, before, null);
      const integrations = await m.findBy(ProjectIntegrationEntity, { projectId: id });
      for (const i of integrations) await m.delete(WebhookEventEntity, { integrationId: i.id });
      await m.delete(ProjectIntegrationEntity, { projectId: id });
      await m.delete(ProjectMaterialEntity, { projectId: id });
      return true;
    });
  }

  async materialCounts(projectIds: string[]): Promise<Map<string, Partial<Record<MaterialKind, number>>>> {
    const out = new Map<string, Partial<Record<MaterialKind, number>>>(projectIds.map((id) => [id, {}]));
    if (projectIds.length === 0) return out;
    const rows = await this.materials
      .createQueryBuilder('m')
      .select('m.project_id', 'project')
      .addSelect('m.kind', 'kind')
      .addSelect('COUNT(*)', 'n')
      .where('m.project_id IN (:...ids)', { ids: projectIds })
      .groupBy('m.project_id')
      .addGroupBy('m.kind')
      .getRawMany<{ project: string; kind: MaterialKind; n: string | number }>();
    for (const r of rows) out.get(r.project)![r.kind] = Number(r.n);
    return out;
  }

  // ── materials ──────────────────────────────────────────────────────────────────────────────────

  /** False when the project is gone (deleted meanwhile): nothing written. */
  insertMaterial(row: Omit<ProjectMaterialEntity, 'seq'>): Promise<boolean> {
    return this.tx.run(async (m) => {
      if (!(await this.lockProject(m, row.projectId))) return false;
      await m.insert(ProjectMaterialEntity, { ...row });
      await this.recordMaterial(m, 'material.create', row);
      return true;
    });
  }

  findMaterial(projectId: string, id: string): Promise<ProjectMaterialEntity | null> {
    return this.materials.findOneBy({ projectId, id });
  }

  findMaterialBy(
    projectId: string,
    where: { documentId?: string; knowledgeBaseId?: string },
  ): Promise<ProjectMaterialEntity | null> {
    return this.materials.findOneBy({ projectId, ...where });
  }

  /** Oldest first. */
  listMaterials(projectId: string): Promise<ProjectMaterialEntity[]> {
    return this.materials.find({ where: { projectId }, order: { seq: 'ASC' } });
  }

  /** Sets the material's document once (the first webhook event); false when another request set it first. */
  async setMaterialDocument(id: string, documentId: string): Promise<boolean> {
    const res = await this.materials
      .createQueryBuilder()
      .update()
      .set({ documentId })
      .where('id = :id AND document_id IS NULL', { id })
      .execute();
    return (res.affected ?? 0) > 0;
  }

  /** The material and, for an integration, the integration and its events. */
  deleteMaterial(projectId: string, id: string): Promise<boolean> {
    return this.tx.run(async (m) => {
      if (!(await this.lockProject(m, projectId))) return false;
      const row = await m.findOneBy(ProjectMaterialEntity, { projectId, id });
      if (!row) return false;
      await m.delete(ProjectMaterialEntity, { projectId, id });
      if (row.integrationId) {
        await m.delete(WebhookEventEntity, { integrationId: row.integrationId });
        await m.delete(ProjectIntegrationEntity, { id: row.integrationId });
      }
      await this.recordMaterial(m, 'material.delete', row);
      return true;
    });
  }

  // ── integrations ───────────────────────────────────────────────────────────────────────────────

  /** The integration and its material, in one transaction; false when the project is gone. */
  insertIntegration(row: ProjectIntegrationEntity, material: Omit<ProjectMaterialEntity, 'seq'>): Promise<boolean> {
    return this.tx.run(async (m) => {
      if (!(await this.lockProject(m, material.projectId))) return false;
      await m.insert(ProjectMaterialEntity, { ...material });
      await m.insert(ProjectIntegrationEntity, { ...row });
      // type, name and URL only: headers, body and the signing secret never reach the audit log
      await this.audit.record(m, {
        teamId: row.teamId,
        action: 'integration.create',
        targetType: 'integration',
        targetId: row.id,
        after: { project_id: row.projectId, type: row.type, name: row.name, url: row.url },
      });
      return true;
    });
  }

  findIntegration(id: string): Promise<ProjectIntegrationEntity | null> {
    return this.integrations.findOneBy({ id });
  }

  integrationsOf(projectId: string): Promise<ProjectIntegrationEntity[]> {
    return this.integrations.findBy({ projectId });
  }

  async updateIntegration(id: string, patch: Partial<ProjectIntegrationEntity>): Promise<void> {
    await this.integrations.update({ id }, patch);
  }

  /**
   * Claims the most overdue external-API integration under a lease: due (`next_run_at` passed) and
   * not leased by a live replica. Postgres: `FOR UPDATE SKIP LOCKED`; SQLite: the single writer.
   */
  async claimDue(owner: string, now: number, leaseMs: number): Promise<string | null> {
    const lock = this.sql.pg ? 'FOR UPDATE SKIP LOCKED' : '';
    const { rows } = await this.sql.exec(
      `UPDATE ${this.T.integrations} SET lease_owner = $1, lease_until = $2
       WHERE id = (SELECT id FROM ${this.T.integrations} WHERE type = 'external_api' AND next_run_at <= $3 AND (lease_until IS NULL OR lease_until < $3) ORDER BY next_run_at LIMIT 1 ${lock})
       RETURNING id`,
      [owner, now + leaseMs, now],
    );
    return rows[0] ? String(rows[0].id) : null;
  }

  /** Claims one integration now (manual sync); false while another replica holds it. */
  async claim(id: string, owner: string, now: number, leaseMs: number): Promise<boolean> {
    const { rows } = await this.sql.exec(
      `UPDATE ${this.T.integrations} SET lease_owner = $1, lease_until = $2 WHERE id = $3 AND (lease_until IS NULL OR lease_until < $4) RETURNING id`,
      [owner, now + leaseMs, id, now],
    );
    return rows.length > 0;
  }

  /** Ends this owner's lease on the integration and records the run (a lease held by another owner is left alone). */
  async endLease(id: string, owner: string, patch: Partial<ProjectIntegrationEntity>): Promise<void> {
    await this.integrations.update({ id, leaseOwner: owner }, { ...patch, leaseOwner: null, leaseUntil: null });
  }

  // ── webhook events ─────────────────────────────────────────────────────────────────────────────

  /** Stores the event unless its webhook-id was seen before (then false); keeps the newest `keep`. */
  async addEvent(row: Omit<WebhookEventEntity, 'seq'>, keep: number): Promise<boolean> {
    try {
      const added = await this.tx.run(async (m) => {
        if (await m.findOneBy(WebhookEventEntity, { integrationId: row.integrationId, webhookId: row.webhookId }))
          return false;
        await m.insert(WebhookEventEntity, row);
        return true;
      });
      if (!added) return false;
    } catch (err) {
      // a concurrent delivery of the same id lost the race on the unique index
      if (await this.events.findOneBy({ integrationId: row.integrationId, webhookId: row.webhookId })) return false;
      throw err;
    }
    const edge = await this.events.find({
      select: { seq: true },
      where: { integrationId: row.integrationId },
      order: { seq: 'DESC' },
      skip: keep - 1,
      take: 1,
    });
    if (edge[0]) await this.events.delete({ integrationId: row.integrationId, seq: LessThan(edge[0].seq) });
    return true;
  }

  /** Oldest first. */
  eventsOf(integrationId: string): Promise<WebhookEventEntity[]> {
    return this.events.find({ where: { integrationId }, order: { seq: 'ASC' } });
  }

  // ── deployment secret ──────────────────────────────────────────────────────────────────────────

  /** The named per-deployment secret (gateway_secrets), created once with `candidate` and shared by replicas. */
  secret(name: string, candidate: string, now: number): Promise<string> {
    return deploymentSecret(this.sql, name, candidate, now);
  }
}
