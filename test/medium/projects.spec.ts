import { ProjectsRepository } from '@app/projects/projects.repository';
import {
  ProjectEntity,
  ProjectIntegrationEntity,
  ProjectMaterialEntity,
  WebhookEventEntity,
} from '@app/projects/entities/project.entities';
import { DataSource, In } from 'typeorm';
import { IntegrationSecrets } from '@app/projects/integrations/integration-secrets';
import { ManualClock } from '../support/manual-clock';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';

/**
 * The projects repository against a real database (SQLite; Postgres when configured): scheduled
 * external-API integrations are claimed atomically by two replicas, a crashed replica's lease runs
 * out, a manual sync cannot take a leased integration; webhook events are stored once per
 * webhook-id and trimmed to the newest N. The apps' schedulers poll every 10 minutes (idle here).
 */
describe(`projects repository on ${backendKind()}`, () => {
  let a: TestApp;
  let b: TestApp;
  let repoA: ProjectsRepository;
  let repoB: ProjectsRepository;
  const clock = new ManualClock(Date.UTC(2026, 10, 23, 9, 0, 0));
  let n = 0;

  beforeAll(async () => {
    a = await createTestApp({ clock, env: { INTEGRATION_POLL_MS: '600000' } });
    b = await createTestApp({ clock, env: { INTEGRATION_POLL_MS: '600000' }, shareBackendWith: a });
    repoA = a.get(ProjectsRepository);
    repoB = b.get(ProjectsRepository);
    await repoA.insertProject(project('prj_test', 't'));
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  function project(id: string, teamId: string): Omit<ProjectEntity, 'seq'> {
    return {
      id,
      teamId,
      name: 'p',
      description: null,
      mode: 'default',
      rag: '{}',
      storeId: `vs_${id}`,
      createdAt: clock.now(),
      updatedAt: clock.now(),
    };
  }

  function material(projectId: string, over: Partial<ProjectMaterialEntity> = {}): Omit<ProjectMaterialEntity, 'seq'> {
    const id = `mat_test${String(++n).padStart(20, '0')}`;
    return {
      id,
      projectId,
      teamId: 't',
      kind: 'chat',
      title: 'm',
      documentId: `file-${id}`,
      knowledgeBaseId: null,
      integrationId: null,
      url: null,
      mime: null,
      ownsFile: 1,
      createdAt: clock.now(),
      ...over,
    };
  }

  /** Adds an integration with its material; false when the project is gone. */
  async function addIntegration(
    repo: ProjectsRepository,
    over: Partial<ProjectIntegrationEntity> = {},
  ): Promise<{ id: string; added: boolean }> {
    const id = `int_test${String(++n).padStart(20, '0')}`;
    const row: ProjectIntegrationEntity = {
      id,
      projectId: 'prj_test',
      teamId: 't',
      materialId: `mat_${id}`,
      type: 'external_api',
      name: 'api',
      secretEnc: null,
      url: 'https://example.com/a',
      method: 'GET',
      headersEnc: null,
      headerNames: '[]',
      body: null,
      jsonPath: null,
      intervalSeconds: 300,
      nextRunAt: clock.now(),
      leaseOwner: null,
      leaseUntil: null,
      contentHash: null,
      lastRunAt: null,
      lastError: null,
      createdAt: clock.now(),
      ...over,
    };
    const added = await repo.insertIntegration(row, {
      ...material(row.projectId, {
        kind: 'external_api',
        title: 'api',
        documentId: null,
        integrationId: id,
        url: row.url,
      }),
      id: row.materialId,
    });
    return { id, added };
  }

  async function integration(over: Partial<ProjectIntegrationEntity> = {}): Promise<string> {
    const { id, added } = await addIntegration(repoA, over);
    expect(added).toBe(true);
    return id;
  }

  it('two replicas claiming due integrations concurrently never take the same one', async () => {
    const ids = new Set<string>();
    for (let i = 0; i < 10; i++) ids.add(await integration());
    await integration({ nextRunAt: clock.now() + 60_000 }); // not due
    await integration({ type: 'webhook', nextRunAt: null }); // never scheduled
    const claims = await Promise.all(
      Array.from({ length: 40 }, (_, i) => (i % 2 ? repoA : repoB).claimDue(i % 2 ? 'a' : 'b', clock.now(), 60_000)),
    );
    const taken = claims.filter((c): c is string => c !== null);
    expect(taken).toHaveLength(10);
    expect(new Set(taken)).toEqual(ids);
    expect(await repoA.claimDue('a', clock.now(), 60_000)).toBeNull();
  });

  it("a crashed replica's lease runs out; a released integration waits for next_run_at; sync cannot take a leased one", async () => {
    clock.advance(61_000); // every lease above has expired, and the one due in 60 s is due
    const first = await repoA.claimDue('a', clock.now(), 60_000);
    expect(first).not.toBeNull();
    expect(await repoB.claim(first!, 'b', clock.now(), 60_000)).toBe(false);
    await repoA.endLease(first!, 'a', { nextRunAt: clock.now() + 300_000, lastRunAt: clock.now() });
    const row = await repoA.findIntegration(first!);
    expect(row).toMatchObject({ leaseOwner: null, leaseUntil: null, nextRunAt: clock.now() + 300_000 });
    expect(await repoB.claim(first!, 'b', clock.now(), 60_000)).toBe(true);
    await repoB.endLease(first!, 'b', { nextRunAt: clock.now() + 300_000 });
    // drain the rest (expired leases of the first test) and check the released one is not among them
    const rest: string[] = [];
    for (let c = await repoB.claimDue('b', clock.now(), 60_000); c; c = await repoB.claimDue('b', clock.now(), 60_000))
      rest.push(c);
    expect(rest).toHaveLength(10);
    expect(rest).not.toContain(first);
  });

  it('webhook events: stored once per webhook-id (also under concurrency), newest N kept', async () => {
    const id = await integration({ type: 'webhook', nextRunAt: null });
    const add = (repo: ProjectsRepository, webhookId: string) =>
      repo.addEvent({ integrationId: id, webhookId, receivedAt: clock.now(), payload: webhookId }, 3);
    const racing = await Promise.all(Array.from({ length: 6 }, (_, i) => add(i % 2 ? repoA : repoB, 'evt_same')));
    expect(racing.filter(Boolean)).toHaveLength(1);
    for (const e of ['evt_1', 'evt_2', 'evt_3']) expect(await add(repoA, e)).toBe(true);
    expect(await add(repoB, 'evt_2')).toBe(false);
    expect((await repoA.eventsOf(id)).map((e) => e.webhookId)).toEqual(['evt_1', 'evt_2', 'evt_3']);
  });

  it('deleting a project while materials and integrations are added and deleted: no deadlock, no orphan rows', async () => {
    // every write transaction under a project locks the project row first (deleting it does too):
    // a material added after the deletion is refused (false → 404), none is left without its project
    const other = backendKind() === 'postgres' ? repoB : repoA; // SQLite: one replica
    const ds = a.get(DataSource);
    for (let round = 0; round < 5; round++) {
      const pid = `prj_race${String(round).padStart(20, '0')}${String(++n).padStart(8, '0')}`;
      await repoA.insertProject(project(pid, 't'));
      const existing = Array.from({ length: 8 }, () => material(pid));
      for (const m of existing) expect(await repoA.insertMaterial(m)).toBe(true);
      const hooks: string[] = [];
      for (let i = 0; i < 4; i++) {
        const id = await integration({ projectId: pid, type: 'webhook', nextRunAt: null });
        hooks.push(id);
        await repoA.addEvent({ integrationId: id, webhookId: 'evt_1', receivedAt: clock.now(), payload: 'x' }, 10);
      }
      const integrations = await repoA.integrationsOf(pid);
      const writers: Promise<unknown>[] = [];
      for (let i = 0; i < 16; i++) {
        if (i === 8) writers.push(other.deleteProject('t', pid));
        const repo = i % 2 ? repoA : other;
        if (i % 4 === 0) writers.push(repo.insertMaterial(material(pid)));
        else if (i % 4 === 1) writers.push(repo.deleteMaterial(pid, existing[i >> 1].id));
        else if (i % 4 === 2)
          writers.push(repo.deleteMaterial(pid, integrations[(i >> 2) % integrations.length].materialId));
        else writers.push(addIntegration(repo, { projectId: pid, type: 'webhook', nextRunAt: null }));
      }
      const results = await Promise.allSettled(writers);
      expect(
        results.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason)),
      ).toEqual([]);
      expect(await repoA.findProject('t', pid)).toBeNull();
      const left = await Promise.all([
        ds.getRepository(ProjectMaterialEntity).countBy({ projectId: pid }),
        ds.getRepository(ProjectIntegrationEntity).countBy({ projectId: pid }),
        ds.getRepository(WebhookEventEntity).countBy({ integrationId: In(hooks) }),
      ]);
      expect(left).toEqual([0, 0, 0]);
    }
  }, 60_000);

  it('without INTEGRATION_SECRET_KEY the replicas share one random key stored in the database', async () => {
    const sealed = await a.get(IntegrationSecrets).seal('{"authorization":"Bearer s3cret"}');
    expect(sealed).not.toContain('s3cret');
    expect(await b.get(IntegrationSecrets).open(sealed)).toBe('{"authorization":"Bearer s3cret"}');
  });
});
