import { useTranslation } from 'react-i18next';
import { useQuery } from '@tanstack/react-query';
import { Stack, Table, Text, Title } from '@mantine/core';
import { api, unwrap } from '../../api/client';
import { ErrorAlert, LoadingRows } from '../../components/common';
import { formatDate } from '../../i18n';
import { InviteForm } from '../members/invite-form';

/** A team's members and pending invitations, as the operator sees them; invite from here. */
export function TeamPeople({ teamId }: { teamId: string }) {
  const { t, i18n } = useTranslation();
  const path = { params: { path: { team_id: teamId } } };
  const members = useQuery({
    queryKey: ['members', teamId],
    queryFn: async () => unwrap(await api.GET('/api/v1/teams/{team_id}/members', path)),
  });
  const invitations = useQuery({
    queryKey: ['invitations', teamId],
    queryFn: async () => unwrap(await api.GET('/api/v1/teams/{team_id}/invitations', path)),
  });
  const pending = (invitations.data?.data ?? []).filter((i) => i.status === 'pending');
  return (
    <Stack>
      <InviteForm
        teamId={teamId}
        onInvited={() => {
          void members.refetch();
          void invitations.refetch();
        }}
      />
      <ErrorAlert error={members.error ?? invitations.error} />
      {members.isPending ? (
        <LoadingRows />
      ) : (members.data?.data ?? []).length === 0 ? (
        <Text size="sm">{t('operator.noMembers')}</Text>
      ) : (
        <Table.ScrollContainer minWidth={560}>
          <Table aria-label={t('operator.tabMembers')}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('members.email')}</Table.Th>
                <Table.Th>{t('members.name')}</Table.Th>
                <Table.Th>{t('members.role')}</Table.Th>
                <Table.Th>{t('members.joined')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {(members.data?.data ?? []).map((m) => (
                <Table.Tr key={m.user_id}>
                  <Table.Td>{m.email}</Table.Td>
                  <Table.Td>{m.name ?? '—'}</Table.Td>
                  <Table.Td>{t(`roles.${m.role}`)}</Table.Td>
                  <Table.Td>{formatDate(m.joined_at, i18n.language)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      <Title order={4} size="h6">
        {t('operator.pendingInvitations')}
      </Title>
      {pending.length === 0 ? (
        <Text size="sm">{t('operator.noInvitations')}</Text>
      ) : (
        <Table.ScrollContainer minWidth={480}>
          <Table aria-label={t('operator.pendingInvitations')}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('members.email')}</Table.Th>
                <Table.Th>{t('members.role')}</Table.Th>
                <Table.Th>{t('members.expires')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {pending.map((i) => (
                <Table.Tr key={i.id}>
                  <Table.Td>{i.email}</Table.Td>
                  <Table.Td>{t(`roles.${i.role}`)}</Table.Td>
                  <Table.Td>{formatDate(i.expires_at, i18n.language)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </Stack>
  );
}
