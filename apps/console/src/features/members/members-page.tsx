import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Select, Stack, Table, Title } from '@mantine/core';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { useAuth, usePermissions } from '../../auth/auth-context';
import { ConfirmAction, EmptyState, ErrorAlert, LoadingRows, PageHeader } from '../../components/common';
import { InviteForm, ROLES, type Role } from './invite-form';
import { formatDate } from '../../i18n';
import { DeleteTeam } from './delete-team';
import { RequestLogSettings } from './request-log-settings';
import { DataPolicySettings } from './data-policy-settings';

type Member = components['schemas']['MemberDto'];
type Invitation = components['schemas']['InvitationDto'];

export function MembersPage() {
  const { t, i18n } = useTranslation();
  const auth = useAuth();
  const can = usePermissions();
  const qc = useQueryClient();
  const navigate = useNavigate();
  const team_id = auth.teamId ?? '';
  const canDeleteTeam = auth.mode === 'session' && (auth.role === 'owner' || auth.isOperator);
  const members = useQuery({
    queryKey: ['members', auth.teamId],
    queryFn: async () => unwrap(await api.GET('/api/v1/teams/{team_id}/members', { params: { path: { team_id } } })),
  });
  const invitations = useQuery({
    queryKey: ['invitations', auth.teamId],
    queryFn: async () =>
      unwrap(await api.GET('/api/v1/teams/{team_id}/invitations', { params: { path: { team_id } } })),
    enabled: can.canManageMembers,
  });
  const refresh = () => {
    void qc.invalidateQueries({ queryKey: ['members'] });
    void qc.invalidateQueries({ queryKey: ['invitations'] });
  };
  const setMemberRole = useMutation({
    mutationFn: async (v: { userId: string; role: Role }) =>
      unwrap(
        await api.PATCH('/api/v1/teams/{team_id}/members/{user_id}', {
          params: { path: { team_id, user_id: v.userId } },
          body: { role: v.role },
        }),
      ),
    onSuccess: refresh,
  });
  const remove = useMutation({
    mutationFn: async (user_id: string) =>
      unwrap(await api.DELETE('/api/v1/teams/{team_id}/members/{user_id}', { params: { path: { team_id, user_id } } })),
    onSuccess: refresh,
  });
  const revokeInvitation = useMutation({
    mutationFn: async (id: string) =>
      unwrap(await api.DELETE('/api/v1/teams/{team_id}/invitations/{id}', { params: { path: { team_id, id } } })),
    onSuccess: refresh,
  });
  const roleOptions = ROLES.map((r) => ({ value: r, label: t(`roles.${r}`) }));
  const list = (members.data?.data ?? []) as Member[];
  const pending = ((invitations.data?.data ?? []) as Invitation[]).filter((i) => i.status === 'pending');
  return (
    <Stack>
      <PageHeader title={t('members.title')} description={t('members.subtitle')} />
      {can.canManageMembers && <InviteForm teamId={team_id} onInvited={refresh} />}
      <ErrorAlert error={members.error ?? setMemberRole.error ?? remove.error ?? revokeInvitation.error} />
      {members.isPending ? (
        <LoadingRows />
      ) : list.length === 0 ? (
        <EmptyState title={t('members.empty')} hint={t('members.emptyHint')} />
      ) : (
        <Table.ScrollContainer minWidth={640}>
          <Table aria-label={t('members.title')}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('members.email')}</Table.Th>
                <Table.Th>{t('members.name')}</Table.Th>
                <Table.Th>{t('members.role')}</Table.Th>
                <Table.Th>{t('members.joined')}</Table.Th>
                <Table.Th>{t('common.actions')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {list.map((m) => (
                <Table.Tr key={m.user_id}>
                  <Table.Td>{m.email}</Table.Td>
                  <Table.Td>{m.name}</Table.Td>
                  <Table.Td>
                    {can.canManageMembers && m.email !== auth.email ? (
                      <Select
                        size="xs"
                        w={160}
                        aria-label={t('members.roleOf', { email: m.email })}
                        data={roleOptions}
                        value={m.role}
                        allowDeselect={false}
                        onChange={(v) => v && setMemberRole.mutate({ userId: m.user_id, role: v as Role })}
                      />
                    ) : (
                      t(`roles.${m.role}`)
                    )}
                  </Table.Td>
                  <Table.Td>{formatDate(m.joined_at, i18n.language)}</Table.Td>
                  <Table.Td>
                    {can.canManageMembers && m.email !== auth.email && (
                      <ConfirmAction
                        label={t('members.remove')}
                        title={t('members.removeTitle')}
                        body={t('members.removeBody', { email: m.email })}
                        onConfirm={() => remove.mutateAsync(m.user_id).then(() => undefined)}
                      />
                    )}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {can.canManageMembers && pending.length > 0 && (
        <>
          <Title order={2} size="h4">
            {t('members.pending')}
          </Title>
          <Table.ScrollContainer minWidth={640}>
            <Table aria-label={t('members.pending')}>
              <Table.Tbody>
                {pending.map((i) => (
                  <Table.Tr key={i.id}>
                    <Table.Td>{i.email}</Table.Td>
                    <Table.Td>{t(`roles.${i.role}`)}</Table.Td>
                    <Table.Td>
                      {t('members.expires')} {formatDate(i.expires_at, i18n.language)}
                    </Table.Td>
                    <Table.Td>
                      <ConfirmAction
                        label={t('members.revokeInvitation')}
                        title={t('members.revokeInvitation')}
                        body={t('members.revokeInvitationBody', { email: i.email })}
                        onConfirm={() => revokeInvitation.mutateAsync(i.id).then(() => undefined)}
                      />
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </>
      )}
      {can.canManageMembers && team_id && <RequestLogSettings teamId={team_id} />}
      {can.canManageMembers && team_id && <DataPolicySettings teamId={team_id} />}
      {canDeleteTeam && (
        <DeleteTeam
          teamId={team_id}
          teamName={auth.teamName ?? team_id}
          onDeleted={async () => {
            await auth.reload();
            void navigate('/');
          }}
        />
      )}
    </Stack>
  );
}
