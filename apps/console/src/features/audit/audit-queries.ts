import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';

export interface Option {
  value: string;
  label: string;
}

const person = (u: { email: string; name?: string | null }): Option => ({
  value: u.email,
  label: u.name && u.name !== u.email ? `${u.name} (${u.email})` : u.email,
});

/**
 * The people the person filter offers, by e-mail: the team's members (a team's admins, or an
 * operator who picked a team); every user for an operator looking at all teams.
 */
export function useAuditPeople(operatorView: boolean, teamId: string | undefined): Option[] {
  const members = useQuery({
    queryKey: ['members', teamId],
    queryFn: async () =>
      unwrap(await api.GET('/api/v1/teams/{team_id}/members', { params: { path: { team_id: teamId ?? '' } } })),
    enabled: !!teamId,
  });
  const users = useQuery({
    queryKey: ['admin-users', 'audit'],
    queryFn: async () => unwrap(await api.GET('/api/v1/admin/users', { params: { query: { limit: 500 } } })),
    enabled: operatorView && !teamId,
  });
  const list = teamId ? (members.data?.data ?? []) : (users.data?.data ?? []);
  return list.map(person).sort((a, b) => a.label.localeCompare(b.label));
}

/** The teams an operator may narrow the log to. */
export function useAuditTeams(operatorView: boolean): Option[] {
  const teams = useQuery({
    queryKey: ['admin-teams', 'audit'],
    queryFn: async () => unwrap(await api.GET('/api/v1/admin/teams', { params: { query: { limit: 500 } } })),
    enabled: operatorView,
  });
  return (teams.data?.data ?? [])
    .map((x) => ({ value: x.id, label: x.name }))
    .sort((a, b) => a.label.localeCompare(b.label));
}
