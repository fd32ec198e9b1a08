import { lazy, Suspense } from 'react';
import { useTranslation } from 'react-i18next';
import { useQuery } from '@tanstack/react-query';
import { Stack, Table, Text, Title } from '@mantine/core';
import { api, unwrap } from '../../api/client';
import { ErrorAlert, LoadingRows } from '../../components/common';
import { formatNumber, formatRub } from '../../i18n';

const SummaryChart = lazy(() => import('../usage/summary-chart'));

function useTeamSummary(teamId: string, group_by: 'day' | 'model') {
  return useQuery({
    queryKey: ['admin-usage-summary', teamId, group_by],
    queryFn: async () =>
      unwrap(
        await api.GET('/api/v1/admin/teams/{id}/usage/summary', {
          params: { path: { id: teamId }, query: { group_by } },
        }),
      ),
  });
}

/** A team's spend per day (chart) and per model (table) over the last 30 days. */
export function TeamUsage({ teamId }: { teamId: string }) {
  const { t, i18n } = useTranslation();
  const lang = i18n.language;
  const days = useTeamSummary(teamId, 'day');
  const models = useTeamSummary(teamId, 'model');
  if (days.isPending || models.isPending) return <LoadingRows />;
  if (days.error || models.error) return <ErrorAlert error={days.error ?? models.error} />;
  if (days.data.data.length === 0) return <Text size="sm">{t('operator.noUsage')}</Text>;
  return (
    <Stack>
      <Title order={4} size="h6">
        {t('operator.usageChart')}
      </Title>
      <Suspense fallback={<LoadingRows rows={3} />}>
        <SummaryChart groups={days.data.data} />
      </Suspense>
      <Title order={4} size="h6">
        {t('operator.byModel')}
      </Title>
      <Table.ScrollContainer minWidth={480}>
        <Table aria-label={t('operator.byModel')}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t('usage.model')}</Table.Th>
              <Table.Th>{t('operator.requests')}</Table.Th>
              <Table.Th>{t('operator.tokens')}</Table.Th>
              <Table.Th>{t('operator.spend')}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {models.data.data.map((m) => (
              <Table.Tr key={m.group ?? '—'}>
                <Table.Td>{m.group ?? '—'}</Table.Td>
                <Table.Td>{formatNumber(m.requests, lang)}</Table.Td>
                <Table.Td>{formatNumber(m.total_tokens, lang)}</Table.Td>
                <Table.Td>{formatRub(m.amount_rub, lang)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Stack>
  );
}
