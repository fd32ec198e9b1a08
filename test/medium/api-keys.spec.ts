import { ApiKeysService, hashApiKey } from '@app/auth';
import { ApiKeysRepository } from '@app/auth/api-keys.repository';
import { ApiKeyEntity } from '@app/auth/entities/api-key.entity';
import { ApiError, newId } from '@app/common';
import { Factories } from '../factories';
import { ManualClock } from '../support/manual-clock';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';

/** The API-key repository and service against a real database (SQLite; Postgres when configured). */
describe(`api keys on ${backendKind()}`, () => {
  let t: TestApp;
  let repo: ApiKeysRepository;
  let keys: ApiKeysService;
  let make: Factories;
  const clock = new ManualClock(Date.UTC(2026, 10, 22, 9, 0, 0));

  beforeAll(async () => {
    t = await createTestApp({ clock, env: { AUTH_CACHE_TTL_SECONDS: '5' } });
    repo = t.get(ApiKeysRepository);
    keys = t.get(ApiKeysService);
    make = new Factories(t);
  });
  afterAll(() => t?.close());

  function row(teamId: string, hash: string, over: Partial<ApiKeyEntity> = {}): ApiKeyEntity {
    return {
      id: newId(),
      teamId,
      name: 'n',
      prefix: 'sk-test…',
      keyHash: hash,
      createdAt: clock.now(),
      revokedAt: null,
      lastUsedAt: null,
      ...over,
    };
  }

  it('stores only the hash and prefix; finds the key by hash and by id', async () => {
    const { team, key } = await make.teamWithKey(1);
    const stored = await repo.findByHash(hashApiKey(key.apiKey));
    expect(stored).toMatchObject({
      id: key.id,
      teamId: team.id,
      prefix: key.prefix,
      keyHash: hashApiKey(key.apiKey),
      revokedAt: null,
      lastUsedAt: null,
    });
    expect(JSON.stringify(stored)).not.toContain(key.apiKey);
    expect(key.apiKey.startsWith(key.prefix.replace(/…$/, ''))).toBe(true);
    expect(await repo.findById(key.id)).toEqual(stored);
    expect(await repo.findByHash(hashApiKey('sk-does-not-exist'))).toBeNull();
    expect(await repo.findById('missing')).toBeNull();
  });

  it('insertIfAbsent is idempotent under concurrency (bootstrap on several replicas)', async () => {
    const team = await make.team(0);
    const hash = hashApiKey(`sk-bootstrap-${newId()}`);
    await Promise.all(Array.from({ length: 20 }, () => repo.insertIfAbsent(row(team.id, hash))));
    const found = await repo.findByHash(hash);
    expect(found?.teamId).toBe(team.id);
    // one row only: a second distinct id with the same hash was never written
    await repo.insertIfAbsent(row(team.id, hash, { name: 'other' }));
    expect((await repo.findByHash(hash))?.id).toBe(found?.id);
  });

  it('revoke stamps revoked_at once; a second revoke keeps the first time', async () => {
    const { key } = await make.teamWithKey(1);
    const first = await repo.revoke(key.id, clock.now());
    expect(first?.revokedAt).toBe(clock.now());
    const t1 = clock.now();
    clock.advance(60_000);
    const again = await repo.revoke(key.id, clock.now());
    expect(again?.revokedAt).toBe(t1);
    expect(await repo.revoke('missing', clock.now())).toBeNull();
  });

  it('touch records last use', async () => {
    const { key } = await make.teamWithKey(1);
    clock.advance(1_000);
    await repo.touch(key.id, clock.now());
    expect((await repo.findById(key.id))?.lastUsedAt).toBe(clock.now());
  });

  it('authenticate resolves the caller; revocation is immediate on this replica; unknown keys are 401', async () => {
    const { team, key } = await make.teamWithKey(1);
    await expect(keys.authenticate(key.apiKey)).resolves.toEqual({
      allowedModels: [],
      allowedMcpTools: [],
      teamId: team.id,
      apiKeyId: key.id,
      keyPrefix: key.prefix,
      // the key's and team's rate limits and budgets travel with the cached lookup (none set here)
      limits: {
        keyRpm: null,
        keyTpm: null,
        teamRpm: null,
        teamTpm: null,
        budgetDayMicro: null,
        budgetMonthMicro: null,
      },
      // no data policy set on the team or the key
      dataPolicy: null,
    });
    await keys.revoke(key.id);
    const revoked = await keys.authenticate(key.apiKey).catch((e: unknown) => e);
    expect(revoked).toBeInstanceOf(ApiError);
    expect((revoked as ApiError).status).toBe(401);
    expect((revoked as ApiError).code).toBe('revoked_api_key');
    const unknown = await keys.authenticate('sk-unknown').catch((e: unknown) => e);
    expect((unknown as ApiError).code).toBe('invalid_api_key');
    const missing = await keys.authenticate(null).catch((e: unknown) => e);
    expect((missing as ApiError).code).toBe('missing_api_key');
  });
});
