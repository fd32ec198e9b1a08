import type { AuditEntryEntity } from './audit-entry.entity';
import type { AuditNameRequest, AuditNames } from './audit-names.repository';

export interface AuditActorView {
  type: string;
  id: string | null;
  email: string | null;
  name: string | null;
  label: string | null;
}

export interface AuditDetailsView {
  amount_rub: number | null;
  balance_rub: number | null;
  email: string | null;
  role: string | null;
  previous_role: string | null;
  name: string | null;
  note: string | null;
  reference: string | null;
  reason: string | null;
}

export interface AuditEntryView {
  id: string;
  at: string;
  actor_type: string;
  actor_id: string | null;
  ip: string | null;
  user_agent: string | null;
  team_id: string | null;
  action: string;
  target_type: string | null;
  target_id: string | null;
  diff: unknown;
  actor: AuditActorView;
  team: { id: string; name: string | null } | null;
  target: { type: string | null; id: string | null; label: string | null } | null;
  details: AuditDetailsView;
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' && v !== '[redacted]' ? v : null);
const num = (v: unknown): number | null =>
  typeof v === 'number' && Number.isFinite(v)
    ? v
    : typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v)
      ? Number(v)
      : null;

function parsedDiff(e: AuditEntryEntity): { before: Obj; after: Obj; raw: unknown } {
  const raw = e.diff === null ? null : (JSON.parse(e.diff) as unknown);
  return { before: obj(obj(raw).before), after: obj(obj(raw).after), raw };
}

/** The ids a page of records mentions, to look their names up in one go. */
export function namesWanted(rows: AuditEntryEntity[]): AuditNameRequest {
  const users = new Set<string>();
  const keys = new Set<string>();
  const teams = new Set<string>();
  const invitations = new Set<string>();
  for (const e of rows) {
    if (e.actorType === 'user' && e.actorId) users.add(e.actorId);
    if (e.actorType === 'api_key' && e.actorId) keys.add(e.actorId);
    if (e.teamId) teams.add(e.teamId);
    if (e.targetId) {
      if (e.targetType === 'user') users.add(e.targetId);
      if (e.targetType === 'api_key') keys.add(e.targetId);
      if (e.targetType === 'team') teams.add(e.targetId);
      if (e.targetType === 'invitation') invitations.add(e.targetId);
    }
    if (e.action === 'invitation.accept' && e.diff) {
      const userId = str(obj(obj(JSON.parse(e.diff)).after).user_id);
      if (userId) users.add(userId);
    }
  }
  return { users, keys, teams, invitations };
}

const keyLabel = (k: { name: string | null; prefix: string } | undefined): string | null =>
  k ? (k.name ?? `${k.prefix}…`) : null;

function actorView(e: AuditEntryEntity, names: AuditNames): AuditActorView {
  const base = { type: e.actorType, id: e.actorId, email: null, name: null, label: null };
  if (e.actorType === 'user' && e.actorId) {
    const u = names.users.get(e.actorId);
    return u ? { ...base, email: u.email, name: u.name || null, label: u.name || u.email } : base;
  }
  if (e.actorType === 'api_key' && e.actorId) {
    const k = names.keys.get(e.actorId);
    return { ...base, name: k?.name ?? null, label: keyLabel(k) };
  }
  if (e.actorType === 'anonymous' && e.actorId?.includes('@')) return { ...base, email: e.actorId, label: e.actorId };
  return base;
}

function targetLabel(e: AuditEntryEntity, names: AuditNames, before: Obj, after: Obj): string | null {
  const id = e.targetId;
  if (!id) return null;
  switch (e.targetType) {
    case 'user':
      return names.users.get(id)?.email ?? null;
    case 'api_key':
      return keyLabel(names.keys.get(id)) ?? str(after.name) ?? str(before.name);
    case 'team':
      return names.teams.get(id) ?? str(after.name) ?? str(before.name);
    case 'invitation':
      return names.invitations.get(id) ?? str(after.email);
    case 'model':
      return id;
    case 'session':
      return null;
    default:
      return (
        str(after.name) ??
        str(before.name) ??
        str(after.filename) ??
        str(before.filename) ??
        str(after.title) ??
        str(before.title) ??
        null
      );
  }
}

const firstOf = (...values: (string | null)[]): string | null => values.find((v) => v !== null) ?? null;

function detailsView(e: AuditEntryEntity, names: AuditNames, before: Obj, after: Obj): AuditDetailsView {
  const role = str(after.role);
  const previous = str(before.role);
  const acceptedBy = e.action === 'invitation.accept' ? str(after.user_id) : null;
  const userEmail = (id: string | null) => (id ? (names.users.get(id)?.email ?? null) : null);
  const email = firstOf(
    str(after.email),
    str(before.email),
    userEmail(acceptedBy),
    e.targetType === 'user' ? userEmail(e.targetId) : null,
    e.targetType === 'invitation' && e.targetId ? (names.invitations.get(e.targetId) ?? null) : null,
  );
  return {
    amount_rub: num(after.amount_rub),
    balance_rub: num(after.balance_rub),
    email,
    role,
    previous_role: previous !== null && previous !== role ? previous : null,
    name: str(after.name) ?? str(before.name),
    note: str(after.note),
    reference: str(after.reference),
    reason: str(after.reason),
  };
}

/** One record as the API shows it: the stored fields, plus who, which team and what, by name. */
export function auditEntryView(e: AuditEntryEntity, names: AuditNames): AuditEntryView {
  const { before, after, raw } = parsedDiff(e);
  return {
    id: e.id,
    at: new Date(e.at).toISOString(),
    actor_type: e.actorType,
    actor_id: e.actorId,
    ip: e.ip,
    user_agent: e.userAgent,
    team_id: e.teamId,
    action: e.action,
    target_type: e.targetType,
    target_id: e.targetId,
    diff: raw,
    actor: actorView(e, names),
    team: e.teamId ? { id: e.teamId, name: names.teams.get(e.teamId) ?? null } : null,
    target:
      e.targetType || e.targetId
        ? { type: e.targetType, id: e.targetId, label: targetLabel(e, names, before, after) }
        : null,
    details: detailsView(e, names, before, after),
  };
}

/** The details as one readable cell ("amount_rub: 7; note: Invoice 7 paid"), for CSV. */
export function detailsText(d: AuditDetailsView): string {
  return Object.entries(d)
    .filter(([, v]) => v !== null)
    .map(([k, v]) => `${k}: ${String(v)}`)
    .join('; ');
}
