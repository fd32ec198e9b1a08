import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation, useQuery } from '@tanstack/react-query';
import { Badge, Button, Code, Stack, Table, Text } from '@mantine/core';
import { api, ApiRequestError, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { ErrorAlert, LoadingRows, PageHeader, useErrorText } from '../../components/common';
import { formatNumber } from '../../i18n';

type Provider = components['schemas']['ProviderStatusDto'];
type Window = components['schemas']['ProviderHealthWindowDto'];
type TestResult = components['schemas']['ProviderTestResultDto'];

function Health({ label, w }: { label: string; w: Window }) {
  const { t, i18n } = useTranslation();
  const lang = i18n.language;
  const ms = (v: number | null) => (v === null ? '—' : t('requests.ms', { value: formatNumber(v, lang) }));
  return (
    <Text size="sm">
      <Text span fw={600} size="sm">
        {label}:
      </Text>{' '}
      {w.calls === 0
        ? t('providers.noCalls')
        : [
            t('providers.calls', { count: w.calls }),
            t('providers.errorRate', {
              rate: new Intl.NumberFormat(lang, { style: 'percent', maximumFractionDigits: 1 }).format(
                w.error_rate ?? 0,
              ),
            }),
            t('providers.latency', { p50: ms(w.p50_ms), p95: ms(w.p95_ms) }),
          ].join(' · ')}
    </Text>
  );
}

function TestOutcome({ r }: { r: TestResult }) {
  const { t } = useTranslation();
  const describe = useErrorText();
  if (r.ok)
    return (
      <Text size="sm" c="var(--mantine-color-teal-light-color)" data-testid={`test-${r.provider}`}>
        {t('providers.testOk', { model: r.model, ms: t('requests.ms', { value: r.latency_ms }) })}
      </Text>
    );
  const e = r.error!;
  const said = describe(new ApiRequestError(e.message, e.status, e.code));
  return (
    <Text size="sm" c="var(--mantine-color-red-light-color)" data-testid={`test-${r.provider}`} title={e.message}>
      {t('providers.testFailed', {
        status: e.status,
        code: e.code ? `, ${e.code}` : '',
        latency: r.latency_ms === null ? '' : `, ${t('requests.ms', { value: r.latency_ms })}`,
        message: said.text,
      })}
    </Text>
  );
}

/** Every provider: configuration (credential, base URL, CA file), health over 1 h / 24 h, and "Test". */
export function ProvidersPage() {
  const { t } = useTranslation();
  const [results, setResults] = useState<Record<string, TestResult>>({});
  const list = useQuery({
    queryKey: ['admin-providers'],
    queryFn: async () => unwrap(await api.GET('/api/v1/admin/providers')),
    refetchInterval: 30_000,
  });
  const test = useMutation({
    mutationFn: async (name: string) =>
      unwrap(await api.POST('/api/v1/admin/providers/{name}/test', { params: { path: { name } } })),
    onSuccess: (r) => setResults((all) => ({ ...all, [r.provider]: r })),
  });
  const rows = (list.data?.data ?? []) as Provider[];
  return (
    <Stack>
      <PageHeader title={t('providers.title')} description={t('providers.subtitle')} />
      <ErrorAlert error={list.error ?? test.error} />
      {list.isPending ? (
        <LoadingRows rows={6} />
      ) : (
        <Table.ScrollContainer minWidth={980}>
          <Table aria-label={t('providers.title')} verticalSpacing="sm">
            <Table.Thead>
              <Table.Tr>
                <Table.Th w={160}>{t('providers.name')}</Table.Th>
                <Table.Th>{t('providers.status')}</Table.Th>
                <Table.Th>{t('providers.health')}</Table.Th>
                <Table.Th>{t('common.actions')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((p) => (
                <Table.Tr key={p.name} data-testid={`provider-${p.name}`}>
                  <Table.Td>
                    <Text fw={600}>{p.name}</Text>
                    <Badge color={p.configured ? 'teal' : 'gray'} variant="light" mt={4} tt="none">
                      {p.configured ? t('providers.configured') : t('providers.notConfigured')}
                    </Badge>
                  </Table.Td>
                  <Table.Td>
                    {p.env_prefix === null ? (
                      <Text size="sm">{t('providers.noConfig')}</Text>
                    ) : (
                      <Stack gap={2}>
                        <Text size="sm">
                          {t('providers.credential')}:{' '}
                          {p.missing
                            ? t('providers.missing', {
                                vars: p.missing
                                  .replace(/ and /g, ` ${t('providers.and')} `)
                                  .replace(/ or /g, ` ${t('providers.or')} `),
                              })
                            : t('providers.credentialSet')}
                        </Text>
                        <Text size="sm">
                          {t('providers.baseUrl')}: <Code>{p.base_url}</Code>
                          {p.custom_base_url && ` (${t('providers.customBaseUrl')})`}
                        </Text>
                        {p.takes_ca_file && (
                          <Text size="sm">
                            {t('providers.caFile')}: {p.ca_file ? <Code>{p.ca_file}</Code> : t('providers.caNotSet')}
                          </Text>
                        )}
                        {p.test_model && (
                          <Text size="sm">
                            {t('providers.testModel')}: <Code>{p.test_model}</Code>
                          </Text>
                        )}
                      </Stack>
                    )}
                  </Table.Td>
                  <Table.Td>
                    <Stack gap={2}>
                      <Health label={t('providers.hour')} w={p.health.last_hour} />
                      <Health label={t('providers.day')} w={p.health.last_day} />
                    </Stack>
                  </Table.Td>
                  <Table.Td>
                    <Stack gap={4} align="flex-start">
                      <Button
                        size="xs"
                        variant="light"
                        loading={test.isPending && test.variables === p.name}
                        onClick={() => test.mutate(p.name)}
                        aria-label={t('providers.testNamed', { name: p.name })}
                      >
                        {t('providers.test')}
                      </Button>
                      {results[p.name] && <TestOutcome r={results[p.name]} />}
                    </Stack>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </Stack>
  );
}
