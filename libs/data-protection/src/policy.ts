import { ALL_ENTITY_TYPES, type PiiEntityType } from './detectors';

/**
 * The data policy of a team or an API key, and how two of them combine. Pure: no I/O, no Nest;
 * the auth module reads it to put the caller's effective policy on every request.
 */
export const RESIDENCIES = ['any', 'ru_only'] as const;
export type Residency = (typeof RESIDENCIES)[number];
export const PII_MODES = ['off', 'mask', 'block'] as const;
export type PiiMode = (typeof PII_MODES)[number];
export const PII_SCOPES = ['foreign_only', 'all_providers'] as const;
export type PiiScope = (typeof PII_SCOPES)[number];
export const PII_ENTITY_TYPES: readonly PiiEntityType[] = ALL_ENTITY_TYPES;

export interface CustomPattern {
  name: string;
  regex: string;
}

export interface DataPolicy {
  residency: Residency;
  pii: PiiMode;
  pii_scope: PiiScope;
  entities: PiiEntityType[];
  custom_patterns: CustomPattern[];
  allow_list: string[];
}

/** A key's own policy: what it leaves out is the team's. */
export type KeyDataPolicy = Partial<DataPolicy>;

/** A team that set nothing: requests go anywhere and nothing is detected. */
export const OPEN_POLICY: DataPolicy = {
  residency: 'any',
  pii: 'off',
  pii_scope: 'foreign_only',
  entities: [...PII_ENTITY_TYPES],
  custom_patterns: [],
  allow_list: [],
};

const rank = <T>(all: readonly T[], v: T): number => all.indexOf(v);

/** `key` filled in from `team` where it says nothing. */
export function keyPolicyOver(team: DataPolicy, key: KeyDataPolicy | null | undefined): DataPolicy {
  if (!key) return team;
  return {
    residency: key.residency ?? team.residency,
    pii: key.pii ?? team.pii,
    pii_scope: key.pii_scope ?? team.pii_scope,
    entities: key.entities ?? team.entities,
    custom_patterns: key.custom_patterns ?? team.custom_patterns,
    allow_list: key.allow_list ?? team.allow_list,
  };
}

/**
 * Why the key's policy (filled in from the team's) is looser than the team's, or null when it is
 * as strict or stricter: the field to blame and what it must be.
 */
export function looserThan(team: DataPolicy, key: DataPolicy): { field: string; message: string } | null {
  if (rank(RESIDENCIES, key.residency) < rank(RESIDENCIES, team.residency))
    return { field: 'residency', message: `must be "${team.residency}" as the team's` };
  if (rank(PII_MODES, key.pii) < rank(PII_MODES, team.pii))
    return { field: 'pii', message: `must be at least as strict as the team's "${team.pii}" (off < mask < block)` };
  if (team.pii === 'off') return null;
  if (rank(PII_SCOPES, key.pii_scope) < rank(PII_SCOPES, team.pii_scope))
    return { field: 'pii_scope', message: `must be "${team.pii_scope}" as the team's` };
  const missing = team.entities.filter((e) => !key.entities.includes(e));
  if (missing.length) return { field: 'entities', message: `must include the team's ${missing.join(', ')}` };
  const patterns = team.custom_patterns.filter(
    (p) => !key.custom_patterns.some((k) => k.name === p.name && k.regex === p.regex),
  );
  if (patterns.length)
    return { field: 'custom_patterns', message: `must include the team's ${patterns.map((p) => p.name).join(', ')}` };
  const extra = key.allow_list.filter((a) => !team.allow_list.includes(a));
  if (extra.length)
    return { field: 'allow_list', message: `may only narrow the team's (not in it: ${extra.join(', ')})` };
  return null;
}

/**
 * The stricter of two policies, field by field: residency, mode and scope at their strictest; the
 * entities and patterns of both; only the allowed values both allow. A side with `pii: "off"`
 * contributes no detection settings.
 */
export function stricterPolicy(a: DataPolicy, b: DataPolicy): DataPolicy {
  const detecting = [a, b].filter((p) => p.pii !== 'off');
  const pick = <T>(all: readonly T[], x: T, y: T): T => (rank(all, x) >= rank(all, y) ? x : y);
  const patterns: CustomPattern[] = [];
  for (const p of detecting.flatMap((d) => d.custom_patterns))
    if (!patterns.some((q) => q.name === p.name && q.regex === p.regex)) patterns.push(p);
  return {
    residency: pick(RESIDENCIES, a.residency, b.residency),
    pii: pick(PII_MODES, a.pii, b.pii),
    pii_scope:
      detecting.length === 0
        ? pick(PII_SCOPES, a.pii_scope, b.pii_scope)
        : detecting.map((d) => d.pii_scope).reduce((x, y) => pick(PII_SCOPES, x, y)),
    entities:
      detecting.length === 0
        ? a.entities
        : PII_ENTITY_TYPES.filter((e) => detecting.some((d) => d.entities.includes(e))),
    custom_patterns: patterns,
    allow_list:
      detecting.length === 0
        ? a.allow_list
        : detecting.map((d) => d.allow_list).reduce((x, y) => x.filter((v) => y.includes(v))),
  };
}

/** The policy a request runs under: the team's, made stricter by its key's own. */
export function effectivePolicy(team: DataPolicy | null, key: KeyDataPolicy | null): DataPolicy {
  const base = team ?? OPEN_POLICY;
  return key ? stricterPolicy(base, keyPolicyOver(base, key)) : base;
}

/** True when a model of this jurisdiction may be called under the policy. */
export function residencyAllows(policy: DataPolicy | null | undefined, jurisdiction: 'ru' | 'foreign'): boolean {
  return !policy || policy.residency === 'any' || jurisdiction === 'ru';
}

/** True when personal data sent to a model of this jurisdiction is masked or blocked under the policy. */
export function piiApplies(policy: DataPolicy | null | undefined, jurisdiction: 'ru' | 'foreign'): boolean {
  if (!policy || policy.pii === 'off') return false;
  return policy.pii_scope === 'all_providers' || jurisdiction !== 'ru';
}

/** Parses a stored policy (JSON text); null for none. */
export function parseStoredPolicy<T extends KeyDataPolicy>(raw: string | null | undefined): T | null {
  if (!raw) return null;
  const v: unknown = JSON.parse(raw);
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as T) : null;
}
