import { useMemo } from 'react';
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { useAuth } from '../../auth/auth-context';

export type UsageEntry = components['schemas']['UsageEntryDto'];
export type SummaryGroup = components['schemas']['UsageSummaryGroupDto'];

type UsagePage = components['schemas']['UsageResponseDto'];

/**
 * With a session the team's money endpoints are /api/v1/teams/{team_id}/… (same bodies); with an API
 * key they are the key's own /api/v1/balance, /usage, /usage/summary.
 */
function useTeamBase(): string | null {
  const auth = useAuth();
  return auth.mode === 'session' && auth.teamId ? auth.teamId : null;
}

/**
 * Money moves outside the console (every API call charges the team), so the balance, the summary and
 * the ledger are fetched again each time a page showing them opens, never answered from a cache that
 * predates the call the user just made.
 */
const MONEY_STALE_TIME = 0;

export function useBalance() {
  const team = useTeamBase();
  return useQuery({
    queryKey: ['balance', team],
    staleTime: MONEY_STALE_TIME,
    queryFn: async () =>
      unwrap(
        team
          ? await api.GET('/api/v1/teams/{team_id}/balance', { params: { path: { team_id: team } } })
          : await api.GET('/api/v1/balance'),
      ),
  });
}

export function useUsageSummary(groupBy: 'model' | 'day' | 'key' | 'endpoint', from: string, to: string) {
  const team = useTeamBase();
  return useQuery({
    queryKey: ['usage-summary', team, groupBy, from, to],
    staleTime: MONEY_STALE_TIME,
    queryFn: async () =>
      unwrap(
        team
          ? await api.GET('/api/v1/teams/{team_id}/usage/summary', {
              params: { path: { team_id: team }, query: { group_by: groupBy, from, to } },
            })
          : await api.GET('/api/v1/usage/summary', { params: { query: { group_by: groupBy, from, to } } }),
      ),
  });
}

async function usagePage(team: string | null, before: number | undefined): Promise<UsagePage> {
  return unwrap(
    team
      ? await api.GET('/api/v1/teams/{team_id}/ledger', {
          params: { path: { team_id: team }, query: { limit: 500, before } },
        })
      : await api.GET('/api/v1/usage', { params: { query: { limit: 500, before } } }),
  );
}

/** Ledger entries newer than `since`, newest first (pages of 500, at most `maxPages`). */
export function useLedger(since: string, maxPages = 10) {
  const team = useTeamBase();
  return useQuery({
    queryKey: ['ledger', team, since, maxPages],
    staleTime: MONEY_STALE_TIME,
    queryFn: async () => {
      const out: UsageEntry[] = [];
      let before: number | undefined;
      for (let page = 0; page < maxPages; page++) {
        const res = await usagePage(team, before);
        const entries = res.data as UsageEntry[];
        for (const e of entries) if (e.created_at >= since) out.push(e);
        const last = entries[entries.length - 1];
        if (!res.has_more || !last || last.created_at < since) break;
        before = Number(last.id);
      }
      return out;
    },
  });
}

export function dayOf(iso: string): string {
  return iso.slice(0, 10);
}

/** Charges per UTC day and model, one row per day with a column per model (for the stacked chart). */
export function spendByDayAndModel(entries: UsageEntry[], days: number, now = new Date()) {
  const models = new Set<string>();
  const byDay = new Map<string, Record<string, number>>();
  for (let i = days - 1; i >= 0; i--) {
    const d = new Date(now.getTime() - i * 86_400_000).toISOString().slice(0, 10);
    byDay.set(d, {});
  }
  for (const e of entries) {
    if (e.kind !== 'charge') continue;
    const row = byDay.get(dayOf(e.created_at));
    if (!row) continue;
    const model = (e.model as string | null) ?? 'other';
    models.add(model);
    row[model] = round6((row[model] ?? 0) + Math.abs(e.amount_rub));
    row.__requests = (row.__requests ?? 0) + 1;
  }
  return {
    models: [...models].sort(),
    rows: [...byDay.entries()].map(([day, v]) => ({ day: day.slice(5), ...v })),
  };
}

export function round6(n: number): number {
  return Math.round(n * 1e6) / 1e6;
}

export function isoDaysAgo(days: number, now = new Date()): string {
  const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  d.setUTCDate(d.getUTCDate() - days);
  return d.toISOString();
}

export function startOfMonth(now = new Date()): string {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString();
}

export function startOfToday(now = new Date()): string {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate())).toISOString();
}

export function tomorrow(now = new Date()): string {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1)).toISOString();
}

type ApiKeyRow = components['schemas']['ApiKeyDto'];

/** How a key is shown: its name and display prefix, or the prefix alone. */
export function keyLabel(key: Pick<ApiKeyRow, 'name' | 'prefix'>): string {
  return key.name ? `${key.name} (${key.prefix}…)` : `${key.prefix}…`;
}

/**
 * Labels of the team's keys by id (revoked ones included, since their spend stays in the ledger).
 * With an API key the team's key list is not readable; the request log is, and its records carry
 * each key's display prefix, so the labels come from its latest records then.
 */
export function useKeyLabels(): Map<string, string> {
  const team = useTeamBase();
  const keys = useQuery({
    queryKey: ['keys', team],
    queryFn: async () =>
      unwrap(await api.GET('/api/v1/teams/{team_id}/api-keys', { params: { path: { team_id: team ?? '' } } })),
    enabled: !!team,
  });
  const logged = useQuery({
    queryKey: ['request-key-prefixes'],
    queryFn: async () => unwrap(await api.GET('/api/v1/requests', { params: { query: { limit: 200 } } })),
    enabled: !team,
    staleTime: 60_000,
  });
  return useMemo(() => {
    const labels = new Map<string, string>();
    for (const r of logged.data?.data ?? [])
      if (r.api_key_id && r.key_prefix && !labels.has(r.api_key_id))
        labels.set(r.api_key_id, keyLabel({ name: null, prefix: r.key_prefix }));
    for (const k of (keys.data?.data ?? []) as ApiKeyRow[]) labels.set(k.id, keyLabel(k));
    return labels;
  }, [keys.data, logged.data]);
}
