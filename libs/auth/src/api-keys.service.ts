import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { ApiError, Clock, ClusterBus, newId, SharedCache } from '@app/common';
import { AppConfig } from '@app/config';
import { displayPrefix, generateApiKey, hashApiKey } from './api-key.crypto';
import { TransactionHook } from '@app/database';
import { ApiKeysRepository } from './api-keys.repository';
import { ApiKeyEntity } from './entities/api-key.entity';
import {
  effectivePolicy,
  keyPolicyOver,
  looserThan,
  OPEN_POLICY,
  parseStoredPolicy,
  type DataPolicy,
  type KeyDataPolicy,
} from '@app/data-protection/policy';
import { canonicalPolicy, withDefaults } from '@app/data-protection/policy-validation';

/** Who is calling: resolved from the API key on every request. */
export interface Caller {
  teamId: string;
  apiKeyId: string;
  keyPrefix: string;
  /** rate limits and budgets stored on the key and its team (null = none set; absent in entries cached before governance) */
  limits?: CallerLimits;
  /** the models the key may call (absent or empty = all) */
  allowedModels?: string[];
  /** `server/tool` patterns of the MCP tools the key may use (absent or empty = none) */
  allowedMcpTools?: string[];
  /** set when a signed-in session acts for the team instead of an API key */
  userId?: string;
  /** the data policy the call runs under: the team's, made stricter by the key's own (absent: none set) */
  dataPolicy?: DataPolicy | null;
}

/** 403 model_not_allowed when the caller's key restricts models and `modelKey` is not among them. */
export function assertModelAllowed(caller: Caller, modelKey: string, param = 'model'): void {
  const allowed = caller.allowedModels;
  if (!allowed || allowed.length === 0 || allowed.includes(modelKey)) return;
  throw new ApiError(
    403,
    'permission_error',
    `This API key may not use the model '${modelKey}' (allowed: ${allowed.join(', ')}).`,
    'model_not_allowed',
    param,
  );
}

/** True when the caller may use `modelKey` (no restriction, or listed). */
export function modelAllowed(caller: Caller, modelKey: string): boolean {
  return !caller.allowedModels || caller.allowedModels.length === 0 || caller.allowedModels.includes(modelKey);
}

/** Stored on the key (rpm/tpm/budgets) and on its team (team rpm/tpm); null = not set (the env default applies to rpm/tpm). */
export interface CallerLimits {
  keyRpm: number | null;
  keyTpm: number | null;
  teamRpm: number | null;
  teamTpm: number | null;
  budgetDayMicro: number | null;
  budgetMonthMicro: number | null;
}

/** A key as the admin API lists it (never the secret or its hash). */
export interface ApiKeyView {
  id: string;
  teamId: string;
  name: string | null;
  prefix: string;
  createdAt: number;
  lastUsedAt: number | null;
  revokedAt: number | null;
  rpmLimit: number | null;
  tpmLimit: number | null;
  budgetDayMicro: number | null;
  budgetMonthMicro: number | null;
  createdBy: string | null;
  expiresAt: number | null;
  /** empty = every model */
  allowedModels: string[];
  /** the key's own data policy (what it leaves out is the team's); null = the team's */
  dataPolicy: KeyDataPolicy | null;
  /** empty = no MCP tool */
  allowedMcpTools: string[];
}

export type ApiKeyPatch = Partial<{
  name: string | null;
  rpmLimit: number | null;
  tpmLimit: number | null;
  budgetDayMicro: number | null;
  budgetMonthMicro: number | null;
  expiresAt: number | null;
  /** null or [] = every model */
  allowedModels: string[] | null;
  /** null = the team's */
  dataPolicy: KeyDataPolicy | null;
  /** null or [] = no MCP tool */
  allowedMcpTools: string[] | null;
}>;

/** Optional properties of a new key. */
export interface NewKeyOptions {
  createdBy?: string | null;
  expiresAt?: number | null;
  allowedModels?: string[] | null;
  /** the key's own data policy: at least as strict as its team's (400 otherwise) */
  dataPolicy?: KeyDataPolicy | null;
  /**
   * a rotated key's policy, copied as its predecessor stored it, unchecked: the effective policy is the
   * stricter of team and key, so one the team has since tightened past stays harmless
   */
  inheritedDataPolicy?: KeyDataPolicy | null;
  allowedMcpTools?: string[] | null;
  /** rate limits and budgets (a rotated key keeps its predecessor's) */
  limits?: Pick<ApiKeyView, 'rpmLimit' | 'tpmLimit' | 'budgetDayMicro' | 'budgetMonthMicro'>;
  /** runs in the transaction that inserts the key (its audit record) */
  within?: TransactionHook<ApiKeyView>;
}

/** A key before and after a change, given to the hook that runs in the change's transaction. */
export interface ApiKeyChange {
  before: ApiKeyView;
  after: ApiKeyView;
}

export interface CreatedApiKey {
  id: string;
  apiKey: string;
  prefix: string;
  name: string | null;
  createdAt: number;
  createdBy: string | null;
  expiresAt: number | null;
  allowedModels: string[];
  dataPolicy: KeyDataPolicy | null;
  allowedMcpTools: string[];
}

type CachedLookup = { caller: Caller; expiresAt?: number | null } | { revoked: true } | { unknown: true };

/**
 * Key lookups are cached in two layers so a request does not hit the database for auth:
 *  1. in-process, for AUTH_CACHE_TTL_SECONDS (≤ 5 s);
 *  2. Redis (when configured), for SHARED_TTL_MS, deleted on revocation.
 * A revocation (or a change of a key's limits) drops both layers on the replica that made it and is
 * announced on the cluster bus (Redis pub/sub), so every other replica drops its in-process entry
 * as soon as the message arrives (milliseconds); the next read finds the shared entry gone and reads
 * the database. AUTH_CACHE_TTL_SECONDS still bounds it should a message be lost (Redis outage).
 */
@Injectable()
export class ApiKeysService implements OnModuleInit {
  static readonly FORGET_CHANNEL = 'auth-key-changed';
  static readonly SHARED_TTL_MS = 60_000;
  static readonly TOUCH_EVERY_MS = 60_000;
  private readonly logger = new Logger('ApiKeys');
  private readonly local = new Map<string, { value: CachedLookup; until: number }>();
  private readonly lastTouched = new Map<string, number>();

  constructor(
    private readonly repo: ApiKeysRepository,
    private readonly cache: SharedCache,
    private readonly clock: Clock,
    private readonly config: AppConfig,
    private readonly bus: ClusterBus,
  ) {}

  onModuleInit(): void {
    this.bus.subscribe(ApiKeysService.FORGET_CHANNEL, (hash) => this.local.delete(hash));
  }

  async create(teamId: string, name: string | null, opts: NewKeyOptions = {}): Promise<CreatedApiKey> {
    const apiKey = generateApiKey();
    const models = opts.allowedModels && opts.allowedModels.length > 0 ? [...new Set(opts.allowedModels)] : [];
    const dataPolicy =
      opts.inheritedDataPolicy !== undefined
        ? opts.inheritedDataPolicy
        : opts.dataPolicy
          ? await this.keyPolicy(teamId, opts.dataPolicy)
          : null;
    const tools = opts.allowedMcpTools && opts.allowedMcpTools.length > 0 ? [...new Set(opts.allowedMcpTools)] : [];
    const entity: ApiKeyEntity = {
      id: newId(),
      teamId,
      name,
      prefix: displayPrefix(apiKey),
      keyHash: hashApiKey(apiKey),
      createdAt: this.clock.now(),
      revokedAt: null,
      lastUsedAt: null,
      createdBy: opts.createdBy ?? null,
      expiresAt: opts.expiresAt ?? null,
      allowedModels: models.length > 0 ? JSON.stringify(models) : null,
      dataPolicy: dataPolicy ? JSON.stringify(dataPolicy) : null,
      allowedMcpTools: tools.length > 0 ? JSON.stringify(tools) : null,
      ...(opts.limits ?? {}),
    };
    const within = opts.within;
    await this.repo.insert(entity, within && ((m, row) => within(m, toView(row))));
    return {
      id: entity.id,
      apiKey,
      prefix: entity.prefix,
      name,
      createdAt: entity.createdAt,
      createdBy: entity.createdBy ?? null,
      expiresAt: entity.expiresAt ?? null,
      allowedModels: models,
      dataPolicy,
      allowedMcpTools: tools,
    };
  }

  /**
   * A key's own data policy made canonical (custom patterns compiled: 400 invalid_pattern), and 400
   * data_policy_looser_than_team when it would loosen its team's.
   */
  private async keyPolicy(teamId: string, given: KeyDataPolicy): Promise<KeyDataPolicy> {
    const policy = canonicalPolicy(given, 'data_policy');
    const team = await this.repo.teamLimits(teamId);
    const teamPolicy = team ? withDefaults(parseStoredPolicy<DataPolicy>(team.teamPolicy) ?? OPEN_POLICY) : OPEN_POLICY;
    const looser = looserThan(teamPolicy, keyPolicyOver(teamPolicy, policy));
    if (looser)
      throw ApiError.badRequest(
        `data_policy.${looser.field} ${looser.message}: a key's data policy may be stricter than its team's, never looser.`,
        `data_policy.${looser.field}`,
        'data_policy_looser_than_team',
      );
    return policy;
  }

  /** Registers a caller-chosen key (BOOTSTRAP_API_KEY) for a team; idempotent. */
  async ensure(teamId: string, apiKey: string, name: string): Promise<void> {
    await this.repo.insertIfAbsent({
      id: newId(),
      teamId,
      name,
      prefix: displayPrefix(apiKey),
      keyHash: hashApiKey(apiKey),
      createdAt: this.clock.now(),
      revokedAt: null,
      lastUsedAt: null,
    });
  }

  /** How many keys exist (revoked ones included): zero on a fresh database. */
  count(): Promise<number> {
    return this.repo.count();
  }

  async existsByKey(apiKey: string): Promise<boolean> {
    return (await this.repo.findByHash(hashApiKey(apiKey))) !== null;
  }

  /** Revokes the key; `within` runs in the revoking transaction (not when it was revoked already). */
  async revoke(id: string, within?: TransactionHook<ApiKeyChange>): Promise<void> {
    const key = await this.repo.revoke(id, this.clock.now(), within && viewsOf(within));
    if (!key) throw ApiError.notFound(`API key ${id} not found.`, 'api_key_not_found', 'id');
    await this.forget(key.keyHash);
  }

  async listByTeam(teamId: string): Promise<ApiKeyView[]> {
    return (await this.repo.listByTeam(teamId)).map(toView);
  }

  async get(id: string): Promise<ApiKeyView> {
    const key = await this.repo.findById(id);
    if (!key) throw ApiError.notFound(`API key ${id} not found.`, 'api_key_not_found', 'id');
    return toView(key);
  }

  /**
   * Changes a key's name, limits or budgets (null clears). Cached lookups are dropped here, in Redis
   * and on the other replicas (see forget).
   */
  async update(id: string, patch: ApiKeyPatch, within?: TransactionHook<ApiKeyChange>): Promise<ApiKeyView> {
    const { allowedModels, allowedMcpTools, dataPolicy, ...rest } = patch;
    let policy: string | null | undefined = dataPolicy === undefined ? undefined : null;
    if (dataPolicy) {
      const current = await this.repo.findById(id);
      if (!current) throw ApiError.notFound(`API key ${id} not found.`, 'api_key_not_found', 'id');
      policy = JSON.stringify(await this.keyPolicy(current.teamId, dataPolicy));
    }
    const key = await this.repo.update(
      id,
      {
        ...rest,
        allowedModels: storedList(allowedModels),
        allowedMcpTools: storedList(allowedMcpTools),
        dataPolicy: policy,
      },
      within && viewsOf(within),
    );
    if (!key) throw ApiError.notFound(`API key ${id} not found.`, 'api_key_not_found', 'id');
    await this.forget(key.keyHash);
    return toView(key);
  }

  /**
   * The limits a signed-in session acts under in a team: the team's stored rate limits (a session has
   * no key limits or budgets of its own); null when the team does not exist.
   */
  async sessionLimits(teamId: string): Promise<CallerLimits | null> {
    return (await this.sessionSettings(teamId))?.limits ?? null;
  }

  /** The limits and the data policy (the team's) a signed-in session acts under in a team; null when the team does not exist. */
  async sessionSettings(teamId: string): Promise<{ limits: CallerLimits; dataPolicy: DataPolicy | null } | null> {
    const team = await this.repo.teamLimits(teamId);
    if (!team) return null;
    return {
      limits: {
        keyRpm: null,
        keyTpm: null,
        teamRpm: team.teamRpm,
        teamTpm: team.teamTpm,
        budgetDayMicro: null,
        budgetMonthMicro: null,
      },
      dataPolicy: callerPolicy(team.teamPolicy, null),
    };
  }

  /** Drops the cached lookups of every key of a team (its limits changed). */
  async forgetTeam(teamId: string): Promise<void> {
    for (const key of await this.repo.listByTeam(teamId)) await this.forget(key.keyHash);
  }

  /** Drops the cached lookups of keys revoked by another module's transaction (by their hashes). */
  async forgetHashes(hashes: string[]): Promise<void> {
    for (const hash of hashes) await this.forget(hash);
  }

  /** Drops the cached lookups of a key here, in Redis and (through the bus) on every other replica. */
  private async forget(hash: string): Promise<void> {
    this.local.delete(hash);
    await this.cache.del(this.sharedKey(hash));
    await this.bus.publish(ApiKeysService.FORGET_CHANNEL, hash);
  }

  /** Resolves the caller or throws 401. */
  async authenticate(apiKey: string | null): Promise<Caller> {
    if (!apiKey)
      throw ApiError.unauthorized(
        'Missing API key. Send it as "api-key: <key>", "Authorization: Bearer <key>", "Authorization: api-key <key>" or "x-api-key: <key>".',
        'missing_api_key',
      );
    const hash = hashApiKey(apiKey);
    const lookup = await this.lookup(hash);
    if ('caller' in lookup) {
      if (lookup.expiresAt != null && this.clock.now() >= lookup.expiresAt)
        throw ApiError.unauthorized('This API key has expired.', 'key_expired');
      this.touch(lookup.caller.apiKeyId);
      return lookup.caller;
    }
    if ('revoked' in lookup) throw ApiError.unauthorized('This API key has been revoked.', 'revoked_api_key');
    throw ApiError.unauthorized('Invalid API key.', 'invalid_api_key');
  }

  private async lookup(hash: string): Promise<CachedLookup> {
    const now = this.clock.now();
    const hit = this.local.get(hash);
    if (hit && hit.until > now) return hit.value;

    // the shared layer only helps when it is shared (Redis); in-process it would outlive revocations elsewhere
    const shared = this.cache.backend === 'redis';
    let value = shared ? await this.cache.get<CachedLookup>(this.sharedKey(hash)) : undefined;
    if (!value) {
      const found = await this.repo.findForAuth(hash);
      const row = found?.key;
      value =
        !found || !row
          ? { unknown: true }
          : row.revokedAt !== null
            ? { revoked: true }
            : {
                caller: {
                  teamId: row.teamId,
                  apiKeyId: row.id,
                  keyPrefix: row.prefix,
                  limits: {
                    keyRpm: row.rpmLimit ?? null,
                    keyTpm: row.tpmLimit ?? null,
                    teamRpm: found.teamRpm,
                    teamTpm: found.teamTpm,
                    budgetDayMicro: row.budgetDayMicro ?? null,
                    budgetMonthMicro: row.budgetMonthMicro ?? null,
                  },
                  allowedModels: parseModels(row.allowedModels),
                  dataPolicy: callerPolicy(found.teamPolicy, row.dataPolicy),
                  allowedMcpTools: parseModels(row.allowedMcpTools),
                },
                expiresAt: row.expiresAt ?? null,
              };
      if (shared && !('unknown' in value))
        await this.cache.set(this.sharedKey(hash), value, ApiKeysService.SHARED_TTL_MS);
    }
    const ttl = this.config.authCacheTtlMs;
    if (ttl > 0) {
      if (this.local.size > 50_000) this.local.clear();
      this.local.set(hash, { value, until: now + ttl });
    }
    return value;
  }

  /** last_used_at is written at most once a minute per key per replica, off the request path. */
  private touch(apiKeyId: string): void {
    const now = this.clock.now();
    const last = this.lastTouched.get(apiKeyId) ?? 0;
    if (now - last < ApiKeysService.TOUCH_EVERY_MS) return;
    this.lastTouched.set(apiKeyId, now);
    this.repo.touch(apiKeyId, now).catch((err: unknown) => this.logger.warn({ err }, 'could not update last_used_at'));
  }

  private sharedKey(hash: string): string {
    return `auth:key:${hash}`;
  }
}

function viewsOf(hook: TransactionHook<ApiKeyChange>): TransactionHook<{ before: ApiKeyEntity; after: ApiKeyEntity }> {
  return (m, c) => hook(m, { before: toView(c.before), after: toView(c.after) });
}

function toView(k: ApiKeyEntity): ApiKeyView {
  return {
    id: k.id,
    teamId: k.teamId,
    name: k.name,
    prefix: k.prefix,
    createdAt: k.createdAt,
    lastUsedAt: k.lastUsedAt,
    revokedAt: k.revokedAt,
    rpmLimit: k.rpmLimit ?? null,
    tpmLimit: k.tpmLimit ?? null,
    budgetDayMicro: k.budgetDayMicro ?? null,
    budgetMonthMicro: k.budgetMonthMicro ?? null,
    createdBy: k.createdBy ?? null,
    expiresAt: k.expiresAt ?? null,
    allowedModels: parseModels(k.allowedModels),
    dataPolicy: parseStoredPolicy<KeyDataPolicy>(k.dataPolicy),
    allowedMcpTools: parseModels(k.allowedMcpTools),
  };
}

/** The effective policy of a team's stored policy and a key's; null when neither restricts anything. */
function callerPolicy(team: string | null, key: string | null | undefined): DataPolicy | null {
  const teamPolicy = parseStoredPolicy<DataPolicy>(team);
  const keyPolicy = parseStoredPolicy<KeyDataPolicy>(key);
  if (!teamPolicy && !keyPolicy) return null;
  const p = effectivePolicy(teamPolicy ? withDefaults(teamPolicy) : null, keyPolicy);
  return p.residency === 'any' && p.pii === 'off' ? null : p;
}

/** A list patch as stored: undefined = unchanged, null or [] = cleared, else the distinct entries as JSON. */
function storedList(list: string[] | null | undefined): string | null | undefined {
  if (list === undefined) return undefined;
  return list === null || list.length === 0 ? null : JSON.stringify([...new Set(list)]);
}

function parseModels(raw: string | null | undefined): string[] {
  if (!raw) return [];
  const v: unknown = JSON.parse(raw);
  return Array.isArray(v) ? v.filter((m): m is string => typeof m === 'string') : [];
}
