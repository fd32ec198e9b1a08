import { lazy, Suspense, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import Papa from 'papaparse';
import {
  Anchor,
  Button,
  Group,
  Paper,
  SegmentedControl,
  Select,
  SimpleGrid,
  Skeleton,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { EmptyState, ErrorAlert, LoadingRows, PageHeader } from '../../components/common';
import { endpointLabel, formatDate, formatNumber, formatRub } from '../../i18n';
import {
  isoDaysAgo,
  round6,
  tomorrow,
  useKeyLabels,
  useLedger,
  useUsageSummary,
  type UsageEntry,
} from './usage-queries';

const SummaryChart = lazy(() => import('./summary-chart'));

export function filterEntries(
  entries: UsageEntry[],
  f: { from: string; to: string; model: string | null; kind: string | null },
): UsageEntry[] {
  return entries.filter(
    (e) =>
      (!f.from || e.created_at.slice(0, 10) >= f.from) &&
      (!f.to || e.created_at.slice(0, 10) <= f.to) &&
      (!f.model || (e.model as unknown as string | null) === f.model) &&
      (!f.kind || e.kind === f.kind),
  );
}

export function toCsv(entries: UsageEntry[]): string {
  return Papa.unparse(
    entries.map((e) => ({
      id: e.id,
      created_at: e.created_at,
      kind: e.kind,
      endpoint: e.endpoint,
      model: e.model,
      request_id: e.request_id,
      prompt_tokens: e.prompt_tokens,
      completion_tokens: e.completion_tokens,
      total_tokens: e.total_tokens,
      amount_rub: e.amount_rub,
      balance_after_rub: e.balance_after_rub,
      reference: e.reference,
    })),
  );
}

function download(name: string, text: string) {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/csv;charset=utf-8' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  URL.revokeObjectURL(url);
}

export function UsagePage() {
  const { t, i18n } = useTranslation();
  const lang = i18n.language;
  const [from, setFrom] = useState(isoDaysAgo(29).slice(0, 10));
  const [to, setTo] = useState(new Date().toISOString().slice(0, 10));
  const [model, setModel] = useState<string | null>(null);
  const [kind, setKind] = useState<string | null>(null);
  const [groupBy, setGroupBy] = useState<'model' | 'day' | 'key'>('day');
  const ledger = useLedger(`${from}T00:00:00.000Z`);
  const keyLabels = useKeyLabels();
  const summary = useUsageSummary(groupBy, `${from}T00:00:00.000Z`, to ? tomorrowOf(to) : tomorrow());
  const entries = useMemo(
    () => filterEntries(ledger.data ?? [], { from, to, model, kind }),
    [ledger.data, from, to, model, kind],
  );
  const models = useMemo(
    () =>
      [
        ...new Set((ledger.data ?? []).map((e) => e.model as unknown as string | null).filter((m): m is string => !!m)),
      ].sort(),
    [ledger.data],
  );
  const charges = entries.filter((e) => e.kind === 'charge');
  const spent = round6(charges.reduce((s, e) => s + Math.abs(e.amount_rub), 0));
  const tokens = charges.reduce((s, e) => s + (e.total_tokens as number), 0);

  return (
    <Stack>
      <PageHeader
        title={t('usage.title')}
        actions={
          <Button
            variant="light"
            disabled={!entries.length}
            onClick={() => download(`usage-${from}-${to}.csv`, toCsv(entries))}
          >
            {t('usage.export')}
          </Button>
        }
      />
      <Group align="flex-end">
        <TextInput type="date" label={t('usage.from')} value={from} onChange={(e) => setFrom(e.currentTarget.value)} />
        <TextInput type="date" label={t('usage.to')} value={to} onChange={(e) => setTo(e.currentTarget.value)} />
        <Select
          label={t('usage.model')}
          clearable
          data={models}
          value={model}
          onChange={setModel}
          placeholder={t('usage.all')}
        />
        <Select
          label={t('usage.kind')}
          clearable
          value={kind}
          onChange={setKind}
          placeholder={t('usage.all')}
          data={[
            { value: 'charge', label: t('usage.charge') },
            { value: 'top_up', label: t('usage.topUp') },
          ]}
        />
      </Group>
      <ErrorAlert error={ledger.error ?? summary.error} />
      <SimpleGrid cols={{ base: 1, sm: 3 }}>
        <Paper withBorder p="md">
          <Text size="xs" c="dimmed" tt="uppercase" fw={700}>
            {t('usage.totalSpent')}
          </Text>
          <Text fz={22} fw={700} data-testid="usage-total">
            {formatRub(spent, lang, 6)}
          </Text>
        </Paper>
        <Paper withBorder p="md">
          <Text size="xs" c="dimmed" tt="uppercase" fw={700}>
            {t('usage.requests')}
          </Text>
          <Text fz={22} fw={700}>
            {formatNumber(charges.length, lang)}
          </Text>
        </Paper>
        <Paper withBorder p="md">
          <Text size="xs" c="dimmed" tt="uppercase" fw={700}>
            {t('usage.tokens')}
          </Text>
          <Text fz={22} fw={700}>
            {formatNumber(tokens, lang)}
          </Text>
        </Paper>
      </SimpleGrid>
      <Paper withBorder p="md">
        <Group justify="space-between" mb="sm">
          <Title order={2} size="h4">
            {t('usage.chart')}
          </Title>
          <SegmentedControl
            size="xs"
            aria-label={t('usage.groupBy')}
            value={groupBy}
            onChange={(v) => setGroupBy(v as 'model' | 'day' | 'key')}
            data={[
              { value: 'day', label: t('usage.byDay') },
              { value: 'model', label: t('usage.byModel') },
              { value: 'key', label: t('usage.byKey') },
            ]}
          />
        </Group>
        {summary.isPending ? (
          <Skeleton h={240} />
        ) : (
          <Suspense fallback={<Skeleton h={240} />}>
            <SummaryChart groups={summary.data?.data ?? []} labels={groupBy === 'key' ? keyLabels : undefined} />
          </Suspense>
        )}
      </Paper>
      <Title order={2} size="h4">
        {t('usage.ledger')}
      </Title>
      {ledger.isPending ? (
        <LoadingRows rows={6} />
      ) : entries.length === 0 ? (
        <EmptyState title={t('usage.empty')} hint={t('usage.emptyHint')} />
      ) : (
        <Table.ScrollContainer minWidth={640}>
          <Table striped aria-label={t('usage.ledger')}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('usage.time')}</Table.Th>
                <Table.Th>{t('usage.kind')}</Table.Th>
                <Table.Th>{t('usage.endpoint')}</Table.Th>
                <Table.Th>{t('usage.model')}</Table.Th>
                <Table.Th>{t('usage.tokens')}</Table.Th>
                <Table.Th>{t('usage.amount')}</Table.Th>
                <Table.Th>{t('usage.balanceAfter')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {entries.slice(0, 500).map((e) => (
                <Table.Tr key={e.id}>
                  <Table.Td>
                    {e.request_id ? (
                      <Anchor
                        component={Link}
                        to={`/requests?id=${encodeURIComponent(e.request_id)}`}
                        aria-label={t('usage.openRequest', { time: formatDate(e.created_at, lang) })}
                      >
                        {formatDate(e.created_at, lang)}
                      </Anchor>
                    ) : (
                      formatDate(e.created_at, lang)
                    )}
                  </Table.Td>
                  <Table.Td>{e.kind === 'charge' ? t('usage.charge') : t('usage.topUp')}</Table.Td>
                  <Table.Td>{endpointLabel(e.endpoint as string | null)}</Table.Td>
                  <Table.Td>{(e.model as unknown as string | null) ?? '—'}</Table.Td>
                  <Table.Td>{formatNumber(e.total_tokens as number | null, lang)}</Table.Td>
                  <Table.Td>{formatRub(e.amount_rub, lang, 6)}</Table.Td>
                  <Table.Td>{formatRub(e.balance_after_rub, lang)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </Stack>
  );
}

function tomorrowOf(day: string): string {
  const d = new Date(`${day}T00:00:00.000Z`);
  d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString();
}
