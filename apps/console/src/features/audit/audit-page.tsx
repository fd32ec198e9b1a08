import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useInfiniteQuery } from '@tanstack/react-query';
import { Button, Group, Select, Stack, Table, Text, TextInput } from '@mantine/core';
import { api, unwrap } from '../../api/client';
import type { components, paths } from '../../api/schema';
import { useAuth } from '../../auth/auth-context';
import { EmptyState, ErrorAlert, LoadingRows, PageHeader } from '../../components/common';
import { formatDate } from '../../i18n';
import { AUDIT_ACTIONS, AUDIT_OBJECT_TYPES, type AuditObjectType } from './audit-actions';
import { AuditDetails } from './audit-details';
import { AuditExportButton } from './audit-export';
import { useAuditPeople, useAuditTeams } from './audit-queries';
import { useAuditLabels } from '../../i18n/audit-labels';

type AuditEntry = components['schemas']['AuditEntryDto'];
export type AuditFilters = NonNullable<paths['/api/v1/audit-log']['get']['parameters']['query']>;

const PAGE = 50;

/** Who did it, by name and e-mail; the operator token, the CLI and the system by their kind. */
function Actor({ e }: { e: AuditEntry }) {
  const { t } = useTranslation();
  const labels = useAuditLabels();
  const a = e.actor;
  if (a.type === 'anonymous')
    return (
      <>
        {a.email
          ? `${labels.actor('anonymous')} · ${t('audit.failedSignIn', { email: a.email })}`
          : labels.actor('anonymous')}
      </>
    );
  if (!a.label) return <>{labels.actor(a.type)}</>;
  return (
    <Stack gap={0}>
      <Text size="sm">{a.label}</Text>
      {a.email && a.email !== a.label ? (
        <Text size="xs" c="dimmed">
          {a.email}
        </Text>
      ) : a.type === 'api_key' ? (
        <Text size="xs" c="dimmed">
          {labels.actor('api_key')}
        </Text>
      ) : null}
    </Stack>
  );
}

function Target({ e }: { e: AuditEntry }) {
  const labels = useAuditLabels();
  if (!e.target?.type) return <>—</>;
  const type = labels.object(e.target.type);
  return (
    <Stack gap={0}>
      <Text size="sm">{e.target.label ?? type}</Text>
      {e.target.label ? (
        <Text size="xs" c="dimmed">
          {type}
        </Text>
      ) : null}
    </Stack>
  );
}

export function AuditPage() {
  const { t, i18n } = useTranslation();
  const labels = useAuditLabels();
  const auth = useAuth();
  const operatorView = auth.isOperator;
  const [action, setAction] = useState<string | null>(null);
  const [objectType, setObjectType] = useState<string | null>(null);
  const [person, setPerson] = useState<string | null>(null);
  const [team, setTeam] = useState<string | null>(null);
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [exportError, setExportError] = useState<unknown>(null);
  const teamId = operatorView ? (team ?? undefined) : (auth.teamId ?? undefined);
  const people = useAuditPeople(operatorView, teamId);
  const teams = useAuditTeams(operatorView);
  const filters: AuditFilters = {
    team_id: teamId,
    action: action ?? undefined,
    target_type: (objectType as AuditObjectType | null) ?? undefined,
    actor_email: person ?? undefined,
    from: from ? `${from}T00:00:00.000Z` : undefined,
    to: to ? `${to}T23:59:59.999Z` : undefined,
  };
  const log = useInfiniteQuery({
    queryKey: ['audit', filters],
    initialPageParam: undefined as number | undefined,
    queryFn: async ({ pageParam }) =>
      unwrap(await api.GET('/api/v1/audit-log', { params: { query: { ...filters, limit: PAGE, cursor: pageParam } } })),
    getNextPageParam: (last) => last.next_cursor ?? undefined,
  });
  const list = (log.data?.pages ?? []).flatMap((p) => p.data);
  const byLabel = (a: { label: string }, b: { label: string }) => a.label.localeCompare(b.label, i18n.language);
  return (
    <Stack>
      <PageHeader
        title={t('audit.title')}
        description={t('audit.subtitle')}
        actions={<AuditExportButton filters={filters} onError={setExportError} />}
      />
      <Group align="flex-end" wrap="wrap">
        {operatorView && (
          <Select
            label={t('audit.team')}
            placeholder={t('audit.allTeams')}
            data={teams}
            value={team}
            onChange={(v) => {
              setTeam(v);
              setPerson(null);
            }}
            searchable
            clearable
            w={{ base: '100%', xs: 200 }}
          />
        )}
        <Select
          label={t('audit.person')}
          placeholder={t('audit.anyone')}
          data={people}
          value={person}
          onChange={setPerson}
          searchable
          clearable
          w={{ base: '100%', xs: 240 }}
        />
        <Select
          label={t('audit.action')}
          placeholder={t('audit.anyAction')}
          data={AUDIT_ACTIONS.map((a) => ({ value: a, label: labels.action(a) })).sort(byLabel)}
          value={action}
          onChange={setAction}
          searchable
          clearable
          w={{ base: '100%', xs: 260 }}
        />
        <Select
          label={t('audit.objectType')}
          placeholder={t('audit.anyObject')}
          data={AUDIT_OBJECT_TYPES.map((o) => ({ value: o, label: labels.object(o) })).sort(byLabel)}
          value={objectType}
          onChange={setObjectType}
          searchable
          clearable
          w={{ base: '100%', xs: 200 }}
        />
        <TextInput type="date" label={t('usage.from')} value={from} onChange={(e) => setFrom(e.currentTarget.value)} />
        <TextInput type="date" label={t('usage.to')} value={to} onChange={(e) => setTo(e.currentTarget.value)} />
      </Group>
      <ErrorAlert error={log.error ?? exportError} />
      {log.isPending ? (
        <LoadingRows rows={6} />
      ) : list.length === 0 ? (
        <EmptyState title={t('audit.empty')} hint={t('audit.emptyHint')} />
      ) : (
        <>
          <Table.ScrollContainer minWidth={operatorView ? 980 : 860}>
            <Table striped aria-label={t('audit.title')} verticalSpacing="xs">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{t('usage.time')}</Table.Th>
                  {operatorView && <Table.Th>{t('audit.team')}</Table.Th>}
                  <Table.Th>{t('audit.actor')}</Table.Th>
                  <Table.Th>{t('audit.action')}</Table.Th>
                  <Table.Th>{t('audit.target')}</Table.Th>
                  <Table.Th>{t('audit.details')}</Table.Th>
                  <Table.Th>IP</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {list.map((e) => (
                  <Table.Tr key={e.id}>
                    <Table.Td style={{ whiteSpace: 'nowrap' }}>{formatDate(e.at, i18n.language)}</Table.Td>
                    {operatorView && <Table.Td>{e.team ? (e.team.name ?? '—') : '—'}</Table.Td>}
                    <Table.Td>
                      <Actor e={e} />
                    </Table.Td>
                    <Table.Td>{labels.action(e.action)}</Table.Td>
                    <Table.Td>
                      <Target e={e} />
                    </Table.Td>
                    <Table.Td>
                      <AuditDetails e={e} />
                    </Table.Td>
                    <Table.Td>{(e.ip as string | null) ?? '—'}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
          <Group justify="space-between">
            <Text size="sm" c="dimmed">
              {t('audit.shown', { count: list.length })}
            </Text>
            {log.hasNextPage && (
              <Button variant="default" loading={log.isFetchingNextPage} onClick={() => void log.fetchNextPage()}>
                {t('audit.loadMore')}
              </Button>
            )}
          </Group>
        </>
      )}
    </Stack>
  );
}
