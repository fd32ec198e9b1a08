import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { useMutation } from '@tanstack/react-query';
import { Button, Group, NumberInput, Select, Stack, Table, Text, TextInput } from '@mantine/core';
import { EmptyState, ErrorAlert, LoadingRows, PageHeader } from '../../components/common';
import { endpointLabel, formatDate, formatNumber, formatRub } from '../../i18n';
import { useKeyLabels } from '../usage/usage-queries';
import { RequestDrawer, StatusBadge } from './request-drawer';
import {
  emptyFilters,
  exportCsv,
  toQuery,
  useRequestLog,
  type FilterForm,
  type RequestRecord,
  type StatusFilter,
} from './request-queries';

const STATUSES: StatusFilter[] = ['ok', 'error', '4xx', '5xx'];

function download(name: string, blob: Blob) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  URL.revokeObjectURL(url);
}

function Filters({
  value,
  onChange,
  keyOptions,
}: {
  value: FilterForm;
  onChange: (f: FilterForm) => void;
  keyOptions: { value: string; label: string }[];
}) {
  const { t } = useTranslation();
  const set = <K extends keyof FilterForm>(k: K, v: FilterForm[K]) => onChange({ ...value, [k]: v });
  return (
    <Group align="flex-end" gap="sm">
      <TextInput
        type="date"
        label={t('usage.from')}
        value={value.from}
        onChange={(e) => set('from', e.currentTarget.value)}
      />
      <TextInput
        type="date"
        label={t('usage.to')}
        value={value.to}
        onChange={(e) => set('to', e.currentTarget.value)}
      />
      <Select
        label={t('requests.status')}
        w={140}
        clearable
        placeholder={t('usage.all')}
        value={value.status}
        onChange={(v) => set('status', v as StatusFilter | null)}
        data={STATUSES.map((s) => ({ value: s, label: t(`requests.statusFilter.${s}`) }))}
      />
      <TextInput
        label={t('requests.model')}
        w={170}
        value={value.model}
        onChange={(e) => set('model', e.currentTarget.value)}
      />
      <TextInput
        label={t('requests.endpoint')}
        w={190}
        placeholder="/v1/chat/completions"
        value={value.endpoint}
        onChange={(e) => set('endpoint', e.currentTarget.value)}
      />
      {keyOptions.length > 0 && (
        <Select
          label={t('requests.key')}
          w={200}
          clearable
          searchable
          placeholder={t('usage.all')}
          value={value.apiKeyId}
          onChange={(v) => set('apiKeyId', v)}
          data={keyOptions}
        />
      )}
      <TextInput
        label={t('requests.user')}
        w={150}
        value={value.user}
        onChange={(e) => set('user', e.currentTarget.value)}
      />
      <NumberInput
        label={t('requests.minCost')}
        w={150}
        min={0}
        decimalScale={6}
        value={value.minCost}
        onChange={(v) => set('minCost', v)}
      />
      <Button variant="subtle" onClick={() => onChange(emptyFilters)}>
        {t('requests.clear')}
      </Button>
    </Group>
  );
}

/** The caller of a record: the key (name and prefix when known), a console session, or nobody (internal work). */
export function whoCalled(r: RequestRecord, keyLabels: Map<string, string>, sessionLabel: string): string {
  if (r.api_key_id) return keyLabels.get(r.api_key_id) ?? `${r.key_prefix ?? r.api_key_id}…`;
  return r.session_user_id ? sessionLabel : '—';
}

/** The request log's rows; `onOpen` (when given) opens a call's detail. */
export function RequestsTable({
  rows,
  keyLabels,
  onOpen,
}: {
  rows: RequestRecord[];
  keyLabels: Map<string, string>;
  onOpen?: (id: string) => void;
}) {
  const { t, i18n } = useTranslation();
  const lang = i18n.language;
  return (
    <Table.ScrollContainer minWidth={900}>
      <Table aria-label={t('requests.title')} highlightOnHover>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t('requests.time')}</Table.Th>
            <Table.Th>{t('requests.endpoint')}</Table.Th>
            <Table.Th>{t('requests.model')}</Table.Th>
            <Table.Th>{t('requests.status')}</Table.Th>
            <Table.Th>{t('requests.tokensInOut')}</Table.Th>
            <Table.Th>{t('requests.cost')}</Table.Th>
            <Table.Th>{t('requests.latency')}</Table.Th>
            <Table.Th>{t('requests.key')}</Table.Th>
            {onOpen && <Table.Th>{t('common.actions')}</Table.Th>}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((r) => (
            <Table.Tr key={r.id}>
              <Table.Td>{formatDate(r.created_at, lang)}</Table.Td>
              <Table.Td>{endpointLabel(r.endpoint)}</Table.Td>
              <Table.Td>{r.served_model ?? r.model ?? '—'}</Table.Td>
              <Table.Td>
                <Group gap={4} wrap="nowrap">
                  <StatusBadge status={r.status} />
                  {r.error_code && (
                    <Text size="xs" c="dimmed">
                      {r.error_code}
                    </Text>
                  )}
                </Group>
              </Table.Td>
              <Table.Td>
                {formatNumber(r.usage.input_tokens, lang)} / {formatNumber(r.usage.output_tokens, lang)}
              </Table.Td>
              <Table.Td>{formatRub(r.cost_rub, lang, 6)}</Table.Td>
              <Table.Td>{t('requests.ms', { value: formatNumber(r.latency_ms, lang) })}</Table.Td>
              <Table.Td>{whoCalled(r, keyLabels, t('requests.session'))}</Table.Td>
              {onOpen && (
                <Table.Td>
                  <Button
                    size="xs"
                    variant="light"
                    onClick={() => onOpen(r.id)}
                    aria-label={t('requests.open', { id: r.id })}
                  >
                    {t('requests.details')}
                  </Button>
                </Table.Td>
              )}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

/** The team's request log: every model call with filters, a detail drawer and CSV export. */
export function RequestsPage() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const initialStatus = params.get('status');
  const [filters, setFilters] = useState<FilterForm>({
    ...emptyFilters,
    status: STATUSES.includes(initialStatus as StatusFilter) ? (initialStatus as StatusFilter) : null,
  });
  const [openId, setOpenId] = useState<string | null>(params.get('id'));
  const query = useMemo(() => toQuery(filters), [filters]);
  const log = useRequestLog(query);
  const keyLabels = useKeyLabels();
  const keyOptions = [...keyLabels.entries()].map(([value, label]) => ({ value, label }));
  const rows = (log.data?.pages ?? []).flatMap((p) => p.data);
  const csv = useMutation({
    mutationFn: () => exportCsv(query),
    onSuccess: (blob) => download('requests.csv', blob),
  });
  const filtered = JSON.stringify(filters) !== JSON.stringify(emptyFilters);

  return (
    <Stack>
      <PageHeader
        title={t('requests.title')}
        description={t('requests.subtitle')}
        actions={
          <Button variant="light" loading={csv.isPending} disabled={!rows.length} onClick={() => csv.mutate()}>
            {t('usage.export')}
          </Button>
        }
      />
      <Filters value={filters} onChange={setFilters} keyOptions={keyOptions} />
      <ErrorAlert error={log.error ?? csv.error} />
      {log.isPending ? (
        <LoadingRows rows={6} />
      ) : rows.length === 0 ? (
        <EmptyState
          title={t('requests.empty')}
          hint={filtered ? t('requests.emptyFiltered') : t('requests.emptyHint')}
        />
      ) : (
        <>
          <RequestsTable rows={rows} keyLabels={keyLabels} onOpen={setOpenId} />
          {log.hasNextPage && (
            <Group justify="center">
              <Button variant="default" loading={log.isFetchingNextPage} onClick={() => void log.fetchNextPage()}>
                {t('requests.more')}
              </Button>
            </Group>
          )}
        </>
      )}
      <RequestDrawer id={openId} keyLabels={keyLabels} onClose={() => setOpenId(null)} />
    </Stack>
  );
}
