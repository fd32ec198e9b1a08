import { useQueries, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';

export type McpServer = components['schemas']['McpServerDto'];
export type McpTool = components['schemas']['McpToolDto'];
export type McpCallResult = components['schemas']['McpToolCallResultDto'];
export type McpTransport = 'streamable_http' | 'sse';

/** The registry's server names: [a-z0-9_-], 1–64, never "__" (as the API checks). */
export const SERVER_NAME = /^(?!.*__)[a-z0-9_-]{1,64}$/;

export function useMcpServers(teamId: string, enabled = true) {
  return useQuery({
    queryKey: ['mcp-servers', teamId],
    queryFn: async () =>
      unwrap(await api.GET('/api/v1/teams/{team_id}/mcp-servers', { params: { path: { team_id: teamId } } })),
    enabled: enabled && !!teamId,
  });
}

export function useMcpTools(teamId: string, serverId: string | null) {
  return useQuery({
    queryKey: ['mcp-tools', teamId, serverId],
    queryFn: async () =>
      unwrap(
        await api.GET('/api/v1/teams/{team_id}/mcp-servers/{id}/tools', {
          params: { path: { team_id: teamId, id: serverId ?? '' } },
        }),
      ),
    enabled: !!teamId && !!serverId,
  });
}

/**
 * Allowlist suggestions for API keys: `server/*` and `server/tool` for every tool of every
 * registered server of the team.
 */
export function useMcpToolPatterns(teamId: string, enabled: boolean): string[] {
  const servers = useMcpServers(teamId, enabled);
  const list = servers.data?.data ?? [];
  const tools = useQueries({
    queries: list.map((s) => ({
      queryKey: ['mcp-tools', teamId, s.id],
      queryFn: async () =>
        unwrap(
          await api.GET('/api/v1/teams/{team_id}/mcp-servers/{id}/tools', {
            params: { path: { team_id: teamId, id: s.id } },
          }),
        ),
      enabled: enabled && !!teamId,
    })),
  });
  const out: string[] = [];
  list.forEach((s, i) => {
    out.push(`${s.name}/*`);
    for (const t of tools[i]?.data?.data ?? []) out.push(`${s.name}/${t.name}`);
  });
  return out;
}

/** Who may do what on the page; the server enforces the same rules. */
export function mcpPermissions(role: string | null, isOperator: boolean) {
  return {
    canManage: role === 'owner' || role === 'admin' || isOperator,
    canCall: role === 'owner' || role === 'admin' || role === 'member' || isOperator,
  };
}

/** A starting point for a tool's arguments: each property of its input schema with an empty value. */
export function argumentsTemplate(schema: Record<string, unknown> | undefined): string {
  const props = (schema?.properties ?? {}) as Record<string, { type?: unknown }>;
  const blank = (type: unknown): unknown => {
    switch (Array.isArray(type) ? type[0] : type) {
      case 'string':
        return '';
      case 'number':
      case 'integer':
        return 0;
      case 'boolean':
        return false;
      case 'array':
        return [];
      case 'object':
        return {};
      default:
        return null;
    }
  };
  const value = Object.fromEntries(Object.entries(props).map(([k, v]) => [k, blank(v?.type)]));
  return JSON.stringify(value, null, 2);
}

/** The arguments as typed: an object, or why not (the form shows it). */
export function parseArguments(
  text: string,
): { ok: true; value: Record<string, unknown> } | { ok: false; reason: 'json' | 'object'; message: string } {
  const trimmed = text.trim();
  if (trimmed === '') return { ok: true, value: {} };
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch (err) {
    return { ok: false, reason: 'json', message: err instanceof Error ? err.message : String(err) };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return { ok: false, reason: 'object', message: '' };
  return { ok: true, value: value as Record<string, unknown> };
}
