import { useTranslation } from 'react-i18next';
import { Alert, Badge, Code, Drawer, Group, Stack, Table, Text, Timeline, Title } from '@mantine/core';
import { ErrorAlert, LoadingRows } from '../../components/common';
import { endpointLabel, formatDate, formatNumber, formatRub } from '../../i18n';
import { attemptSteps, useRequestDetail, type RequestDetail } from './request-queries';

export function StatusBadge({ status }: { status: number }) {
  return (
    <Badge color={status < 400 ? 'teal' : status < 500 ? 'orange' : 'red'} variant="light">
      {status}
    </Badge>
  );
}

const OUTCOME_COLOR = { answered: 'teal', failed: 'red', fell_back: 'orange', retried: 'yellow' } as const;

function Facts({ r, keyLabel }: { r: RequestDetail; keyLabel: string | null }) {
  const { t, i18n } = useTranslation();
  const lang = i18n.language;
  const rows: [string, string | null][] = [
    [t('requests.time'), formatDate(r.created_at, lang)],
    [t('requests.endpoint'), endpointLabel(r.endpoint)],
    [t('requests.modelRequested'), r.model],
    [t('requests.modelServed'), r.served_model],
    [t('requests.provider'), r.provider],
    [t('requests.errorCode'), r.error_code],
    [t('requests.stream'), r.stream ? t('requests.yes') : t('requests.no')],
    [t('requests.latency'), t('requests.ms', { value: formatNumber(r.latency_ms, lang) })],
    [t('requests.ttft'), r.ttft_ms === null ? null : t('requests.ms', { value: formatNumber(r.ttft_ms, lang) })],
    [
      t('requests.key'),
      r.key_name && r.key_prefix
        ? `${r.key_name} (${r.key_prefix}…)`
        : (keyLabel ?? r.key_name ?? (r.key_prefix ? `${r.key_prefix}…` : null)),
    ],
    [t('requests.keyCreatedBy'), r.key_created_by_email ?? null],
    [t('requests.sessionUser'), r.session_user_email ?? (r.session_user_id ? t('requests.unknownUser') : null)],
    [t('requests.user'), r.user],
    [t('requests.project'), r.project_name ?? r.project_id],
    [t('requests.clientIp'), r.client_ip],
    [t('requests.userAgent'), r.user_agent],
  ];
  return (
    <Table aria-label={t('requests.facts')} withRowBorders={false}>
      <Table.Tbody>
        {rows
          .filter(([, v]) => v !== null && v !== '')
          .map(([k, v]) => (
            <Table.Tr key={k}>
              <Table.Th w={180}>{k}</Table.Th>
              <Table.Td style={{ wordBreak: 'break-all' }}>{v}</Table.Td>
            </Table.Tr>
          ))}
      </Table.Tbody>
    </Table>
  );
}

function Attempts({ r }: { r: RequestDetail }) {
  const { t } = useTranslation();
  const steps = attemptSteps(r);
  if (steps.length === 0) return <Text size="sm">{t('requests.noAttempts')}</Text>;
  return (
    <Timeline active={steps.length - 1} bulletSize={18} lineWidth={2} aria-label={t('requests.attempts')}>
      {steps.map((s, i) => (
        <Timeline.Item
          key={i}
          color={OUTCOME_COLOR[s.outcome]}
          title={t('requests.attemptN', { n: i + 1, model: s.model })}
        >
          <Text size="sm" c="dimmed">
            {t(`requests.outcome.${s.outcome}`)}
            {i === steps.length - 1 ? ` · HTTP ${r.status}${r.error_code ? ` · ${r.error_code}` : ''}` : ''}
          </Text>
        </Timeline.Item>
      ))}
    </Timeline>
  );
}

function Tokens({ r }: { r: RequestDetail }) {
  const { t, i18n } = useTranslation();
  const u = r.usage;
  const cells: [string, number][] = [
    [t('requests.inputTokens'), u.input_tokens],
    [t('requests.outputTokens'), u.output_tokens],
    [t('requests.cacheRead'), u.cache_read_tokens],
    [t('requests.cacheWrite'), u.cache_write_tokens],
    [t('requests.reasoningTokens'), u.reasoning_tokens],
  ];
  return (
    <Table aria-label={t('requests.tokens')}>
      <Table.Thead>
        <Table.Tr>
          {cells.map(([k]) => (
            <Table.Th key={k}>{k}</Table.Th>
          ))}
          <Table.Th>{t('requests.cost')}</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        <Table.Tr>
          {cells.map(([k, v]) => (
            <Table.Td key={k}>{formatNumber(v, i18n.language)}</Table.Td>
          ))}
          <Table.Td data-testid="request-cost">{formatRub(r.cost_rub, i18n.language, 6)}</Table.Td>
        </Table.Tr>
      </Table.Tbody>
    </Table>
  );
}

/** Pretty-prints JSON bodies; SSE and other text stays as stored. */
function pretty(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

function Bodies({ r }: { r: RequestDetail }) {
  const { t } = useTranslation();
  if (r.request_body === undefined && r.response_body === undefined)
    return <Text size="sm">{t('requests.noBodies')}</Text>;
  return (
    <Stack gap="xs">
      {r.body_truncated && (
        <Alert color="yellow" p="xs">
          {t('requests.truncated')}
        </Alert>
      )}
      {(
        [
          ['requestBody', r.request_body],
          ['responseBody', r.response_body],
        ] as const
      ).map(
        ([k, body]) =>
          body !== undefined && (
            <Stack gap={4} key={k}>
              <Text size="sm" fw={600}>
                {t(`requests.${k}`)}
              </Text>
              <Code block aria-label={t(`requests.${k}`)} tabIndex={0} style={{ maxHeight: 320, overflow: 'auto' }}>
                {pretty(body)}
              </Code>
            </Stack>
          ),
      )}
    </Stack>
  );
}

/** The data policy applied to the call: what was done, and the personal data found by type (never values). */
function Protection({ p }: { p: NonNullable<RequestDetail['data_protection']> }) {
  const { t } = useTranslation();
  const found = Object.entries(p.entities)
    .map(([type, n]) => `${type} ×${n}`)
    .join(', ');
  return (
    <Stack gap={4} aria-label={t('requests.dataProtection')}>
      <Title order={3} size="h5">
        {t('requests.dataProtection')}
      </Title>
      <Text size="sm">
        {t(`requests.protectionActions.${p.action}`)} · {p.residency} · {p.pii} ({p.pii_scope})
      </Text>
      {found && (
        <Text size="sm" c="dimmed">
          {t('requests.protectionFound', { found })}
        </Text>
      )}
    </Stack>
  );
}

/** One call of the request log: facts, the timeline of attempts, tokens and cost, bodies when stored. */
export function RequestDrawer({
  id,
  keyLabels,
  onClose,
}: {
  id: string | null;
  keyLabels: Map<string, string>;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const detail = useRequestDetail(id);
  const r = detail.data;
  return (
    <Drawer
      opened={!!id}
      onClose={onClose}
      position="right"
      size="xl"
      title={t('requests.detailTitle', { id: id ?? '' })}
    >
      {detail.isPending ? (
        <LoadingRows />
      ) : detail.error ? (
        <ErrorAlert error={detail.error} />
      ) : (
        r && (
          <Stack>
            <Group gap="xs">
              <StatusBadge status={r.status} />
              <Text fw={600}>{endpointLabel(r.endpoint)}</Text>
            </Group>
            <Facts r={r} keyLabel={r.api_key_id ? (keyLabels.get(r.api_key_id) ?? null) : null} />
            <Title order={3} size="h5">
              {t('requests.attempts')}
            </Title>
            <Attempts r={r} />
            {r.data_protection && <Protection p={r.data_protection} />}
            <Title order={3} size="h5">
              {t('requests.tokensAndCost')}
            </Title>
            <Tokens r={r} />
            <Title order={3} size="h5">
              {t('requests.bodies')}
            </Title>
            <Bodies r={r} />
          </Stack>
        )
      )}
    </Drawer>
  );
}
