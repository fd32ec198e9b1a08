import { lazy, Suspense } from 'react';
import { useTranslation } from 'react-i18next';
import { useQuery } from '@tanstack/react-query';
import { Stack, Text, Title } from '@mantine/core';
import { api, unwrap } from '../../api/client';
import { ErrorAlert, LoadingRows } from '../../components/common';
import { ModelSpendTable } from './model-spend-table';

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
  const { t } = useTranslation();
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
      <ModelSpendTable label={t('operator.byModel')} rows={models.data.data.map((m) => ({ ...m, model: m.group }))} />
    </Stack>
  );
}
