import { useAuditLabels } from '../../i18n/audit-labels';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useQuery } from '@tanstack/react-query';
import { Group, Stack, Table, TextInput } from '@mantine/core';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { useAuth } from '../../auth/auth-context';
import { EmptyState, ErrorAlert, LoadingRows, PageHeader } from '../../components/common';
import { formatDate } from '../../i18n';

type AuditEntry = components['schemas']['AuditEntryDto'];

export function AuditPage() {
  const { t, i18n } = useTranslation();
  const labels = useAuditLabels();
  const auth = useAuth();
  const [action, setAction] = useState('');
  const [actor, setActor] = useState('');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const query = {
    limit: 200,
    team_id: auth.teamId && !auth.isOperator ? auth.teamId : undefined,
    action: action.trim() || undefined,
    actor: actor.trim() || undefined,
    from: from ? `${from}T00:00:00.000Z` : undefined,
    to: to ? `${to}T23:59:59.999Z` : undefined,
  };
  const log = useQuery({
    queryKey: ['audit', query],
    queryFn: async () => unwrap(await api.GET('/api/v1/audit-log', { params: { query } })),
  });
  const list = (log.data?.data ?? []) as AuditEntry[];
  return (
    <Stack>
      <PageHeader title={t('audit.title')} description={t('audit.subtitle')} />
      <Group align="flex-end">
        <TextInput
          label={t('audit.action')}
          placeholder="api_key.create"
          value={action}
          onChange={(e) => setAction(e.currentTarget.value)}
        />
        <TextInput label={t('audit.actor')} value={actor} onChange={(e) => setActor(e.currentTarget.value)} />
        <TextInput type="date" label={t('usage.from')} value={from} onChange={(e) => setFrom(e.currentTarget.value)} />
        <TextInput type="date" label={t('usage.to')} value={to} onChange={(e) => setTo(e.currentTarget.value)} />
      </Group>
      <ErrorAlert error={log.error} />
      {log.isPending ? (
        <LoadingRows rows={6} />
      ) : list.length === 0 ? (
        <EmptyState title={t('audit.empty')} hint={t('audit.emptyHint')} />
      ) : (
        <Table.ScrollContainer minWidth={760}>
          <Table striped aria-label={t('audit.title')}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('usage.time')}</Table.Th>
                <Table.Th>{t('audit.action')}</Table.Th>
                <Table.Th>{t('audit.actor')}</Table.Th>
                <Table.Th>{t('audit.target')}</Table.Th>
                <Table.Th>IP</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {list.map((e) => (
                <Table.Tr key={e.id}>
                  <Table.Td>{formatDate(e.at, i18n.language)}</Table.Td>
                  <Table.Td>{labels.action(e.action)}</Table.Td>
                  <Table.Td>
                    {labels.actor(e.actor_type)}
                    {e.actor_id ? ` · ${e.actor_id}` : ''}
                  </Table.Td>
                  <Table.Td>{e.target_type ? `${labels.object(e.target_type)} · ${e.target_id ?? ''}` : '—'}</Table.Td>
                  <Table.Td>{(e.ip as unknown as string | null) ?? '—'}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </Stack>
  );
}
