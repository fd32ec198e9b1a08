import { lazy, Suspense, useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { Anchor, Paper, SimpleGrid, Skeleton, Stack, Table, Text, Title } from '@mantine/core';
import { EmptyState, ErrorAlert, LoadingRows, PageHeader } from '../../components/common';
import { formatNumber, formatRub } from '../../i18n';
import {
  isoDaysAgo,
  keyLabel,
  spendByDayAndModel,
  startOfMonth,
  startOfToday,
  tomorrow,
  useBalance,
  useKeyLabels,
  useLedger,
  useUsageSummary,
} from '../usage/usage-queries';

import { RecentErrors } from '../requests/recent-errors';
import { BudgetUse } from './budget-use';

const SpendChart = lazy(() => import('./spend-chart'));

function Stat({ label, value, loading }: { label: string; value: string; loading: boolean }) {
  return (
    <Paper withBorder p="md" radius="md">
      <Text size="xs" c="dimmed" tt="uppercase" fw={700}>
        {label}
      </Text>
      {loading ? (
        <Skeleton height={28} mt={6} />
      ) : (
        <Text fz={24} fw={700}>
          {value}
        </Text>
      )}
    </Paper>
  );
}

export function OverviewPage() {
  const { t, i18n } = useTranslation();
  const lang = i18n.language;
  const balance = useBalance();
  const today = useUsageSummary('model', startOfToday(), tomorrow());
  const month = useUsageSummary('model', startOfMonth(), tomorrow());
  const keys = useUsageSummary('key', isoDaysAgo(29), tomorrow());
  const keyLabels = useKeyLabels();
  const ledger = useLedger(isoDaysAgo(29));
  const chart = useMemo(() => spendByDayAndModel(ledger.data ?? [], 30), [ledger.data]);
  const topKeys = (keys.data?.data ?? [])
    .slice()
    .sort((a, b) => b.amount_rub - a.amount_rub)
    .slice(0, 5);

  return (
    <Stack>
      <PageHeader title={t('overview.title')} />
      <ErrorAlert error={balance.error ?? today.error ?? month.error} />
      <SimpleGrid cols={{ base: 1, xs: 2, md: 4 }}>
        <Stat
          label={t('overview.balance')}
          value={formatRub(balance.data?.balance_rub, lang)}
          loading={balance.isPending}
        />
        <Stat
          label={t('overview.reserved')}
          value={formatRub(balance.data?.reserved_rub, lang)}
          loading={balance.isPending}
        />
        <Stat
          label={t('overview.spendToday')}
          value={formatRub(today.data?.total.amount_rub, lang)}
          loading={today.isPending}
        />
        <Stat
          label={t('overview.spendMonth')}
          value={formatRub(month.data?.total.amount_rub, lang)}
          loading={month.isPending}
        />
      </SimpleGrid>
      <Paper withBorder p="md" radius="md">
        <Title order={2} size="h4" mb="sm">
          {t('overview.chartTitle')}
        </Title>
        {ledger.isPending ? (
          <Skeleton height={260} />
        ) : chart.models.length === 0 ? (
          <EmptyState
            title={t('overview.noSpend')}
            hint={t('overview.noSpendHint')}
            action={
              <Anchor component={Link} to="/keys">
                {t('overview.toKeys')}
              </Anchor>
            }
          />
        ) : (
          <Suspense fallback={<Skeleton height={260} />}>
            <SpendChart rows={chart.rows} models={chart.models} />
          </Suspense>
        )}
      </Paper>
      <BudgetUse />
      <Paper withBorder p="md" radius="md">
        <Title order={2} size="h4" mb="sm">
          {t('overview.topKeys')}
        </Title>
        {keys.isPending ? (
          <LoadingRows rows={3} />
        ) : topKeys.length === 0 ? (
          <Text c="dimmed" size="sm">
            {t('overview.noKeysUsage')}
          </Text>
        ) : (
          <Table.ScrollContainer minWidth={640}>
            <Table aria-label={t('overview.topKeys')}>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{t('usage.key')}</Table.Th>
                  <Table.Th>{t('usage.requests')}</Table.Th>
                  <Table.Th>{t('usage.tokens')}</Table.Th>
                  <Table.Th>{t('usage.amount')}</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {topKeys.map((k) => (
                  <Table.Tr key={String(k.group)}>
                    <Table.Td>
                      {k.group === null ? (
                        t('overview.noKey')
                      ) : (
                        <>
                          {k.key_prefix
                            ? keyLabel({ name: k.key_name ?? null, prefix: k.key_prefix })
                            : (keyLabels.get(k.group) ?? t('overview.unknownKey'))}
                          {k.key_created_by_email && (
                            <Text size="xs" c="dimmed">
                              {k.key_created_by_email}
                            </Text>
                          )}
                        </>
                      )}
                    </Table.Td>
                    <Table.Td>{formatNumber(k.requests, lang)}</Table.Td>
                    <Table.Td>{formatNumber(k.total_tokens, lang)}</Table.Td>
                    <Table.Td>{formatRub(k.amount_rub, lang)}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
      </Paper>
      <RecentErrors />
    </Stack>
  );
}
