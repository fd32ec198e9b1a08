import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Group, Select, Stack, Table, TextInput, Title } from '@mantine/core';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { useAuth, usePermissions } from '../../auth/auth-context';
import { ConfirmAction, CopyValue, EmptyState, ErrorAlert, LoadingRows, PageHeader } from '../../components/common';
import { formatDate } from '../../i18n';

type Member = components['schemas']['MemberDto'];
type Invitation = components['schemas']['InvitationDto'];
type CreatedInvitation = components['schemas']['CreatedInvitationDto'];
type Role = components['schemas']['RoleDto']['role'];

const ROLES: Role[] = ['owner', 'admin', 'member', 'viewer'];

export function MembersPage() {
  const { t, i18n } = useTranslation();
  const auth = useAuth();
  const can = usePermissions();
  const qc = useQueryClient();
  const team_id = auth.teamId ?? '';
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('member');
  const [link, setLink] = useState<CreatedInvitation | null>(null);
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
  const invite = useMutation({
    mutationFn: async () =>
      unwrap(
        await api.POST('/api/v1/teams/{team_id}/invitations', {
          params: { path: { team_id } },
          body: { email: email.trim(), role },
        }),
      ),
    onSuccess: (inv: CreatedInvitation) => {
      setLink(inv);
      setEmail('');
      refresh();
    },
  });
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
      {can.canManageMembers && (
        <form
          onSubmit={(e: FormEvent) => {
            e.preventDefault();
            invite.mutate();
          }}
        >
          <Group align="flex-end">
            <TextInput
              label={t('members.email')}
              type="email"
              required
              value={email}
              onChange={(e) => setEmail(e.currentTarget.value)}
            />
            <Select
              label={t('members.role')}
              data={roleOptions}
              value={role}
              onChange={(v) => v && setRole(v)}
              allowDeselect={false}
              w={180}
            />
            <Button type="submit" loading={invite.isPending} disabled={!email.trim()}>
              {t('members.invite')}
            </Button>
          </Group>
        </form>
      )}
      {link && (
        <Alert color="teal" title={t('members.invited')} withCloseButton onClose={() => setLink(null)}>
          <Group>
            <code data-testid="invitation-link">{new URL(link.url, window.location.origin).toString()}</code>
            <CopyValue value={new URL(link.url, window.location.origin).toString()} label={t('members.copyLink')} />
          </Group>
        </Alert>
      )}
      <ErrorAlert
        error={invite.error ?? members.error ?? setMemberRole.error ?? remove.error ?? revokeInvitation.error}
      />
      {members.isPending ? (
        <LoadingRows />
      ) : list.length === 0 ? (
        <EmptyState title={t('members.empty')} hint={t('members.emptyHint')} />
      ) : (
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
      )}
      {can.canManageMembers && pending.length > 0 && (
        <>
          <Title order={2} size="h4">
            {t('members.pending')}
          </Title>
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
        </>
      )}
    </Stack>
  );
}
