import { lazy, Suspense } from 'react';
import { useTranslation } from 'react-i18next';
import { useQuery } from '@tanstack/react-query';
import { Group, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { api, unwrap } from '../../api/client';
import { ErrorAlert, LoadingRows } from '../../components/common';
import { formatNumber, formatRub } from '../../i18n';
import { ModelSpendTable } from './model-spend-table';

const SpendChart = lazy(() => import('../overview/spend-chart'));

/** Every team's spend per day (stacked by team), spend per team and the top models, last 30 days. */
export function AllTeamsUsage() {
  const { t, i18n } = useTranslation();
  const lang = i18n.language;
  const usage = useQuery({
    queryKey: ['admin-usage'],
    queryFn: async () => unwrap(await api.GET('/api/v1/admin/usage', { params: { query: { top: 10 } } })),
  });
  if (usage.isPending) return <LoadingRows rows={6} />;
  if (usage.error) return <ErrorAlert error={usage.error} />;
  const u = usage.data;
  const teams = u.teams.map((x) => x.team_name);
  const byDay = new Map<string, Record<string, string | number>>();
  for (const d of u.days) {
    const row = byDay.get(d.day) ?? { day: d.day };
    row[d.team_name] = d.amount_rub;
    byDay.set(d.day, row);
  }
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2} size="h4">
          {t('operator.allUsageTitle')}
        </Title>
        <Text fw={600}>{t('operator.allUsageTotal', { total: formatRub(u.total_rub, lang) })}</Text>
      </Group>
      {u.days.length === 0 ? (
        <Text size="sm">{t('operator.noUsage')}</Text>
      ) : (
        <Suspense fallback={<LoadingRows rows={3} />}>
          <SpendChart rows={[...byDay.values()]} models={teams} />
        </Suspense>
      )}
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <Stack gap="xs">
          <Title order={3} size="h5">
            {t('operator.teamSpend')}
          </Title>
          <Table.ScrollContainer minWidth={360}>
            <Table aria-label={t('operator.teamSpend')}>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{t('operator.teamName')}</Table.Th>
                  <Table.Th>{t('operator.requests')}</Table.Th>
                  <Table.Th>{t('operator.spend')}</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {u.teams.map((x) => (
                  <Table.Tr key={x.team_id}>
                    <Table.Td>{x.team_name}</Table.Td>
                    <Table.Td>{formatNumber(x.requests, lang)}</Table.Td>
                    <Table.Td>{formatRub(x.amount_rub, lang)}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </Stack>
        <Stack gap="xs">
          <Title order={3} size="h5">
            {t('operator.topModels')}
          </Title>
          <ModelSpendTable label={t('operator.topModels')} rows={u.top_models} />
        </Stack>
      </SimpleGrid>
    </Stack>
  );
}
