import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  Alert,
  Badge,
  Button,
  Code,
  Group,
  NumberInput,
  Paper,
  Select,
  SimpleGrid,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { useAuth } from '../../auth/auth-context';
import { ConfirmAction, CopyValue, EmptyState, ErrorAlert, LoadingRows, PageHeader } from '../../components/common';
import { formatDate, formatNumber, formatRub } from '../../i18n';

type Rule = components['schemas']['AlertRuleDto'];
type Event = components['schemas']['AlertEventDto'];
type CreateBody = components['schemas']['CreateAlertDto'];
const KINDS = ['balance_below', 'budget_used', 'error_rate'] as const;
const CHANNELS = ['webhook', 'email', 'telegram'] as const;
const LANGUAGES = ['en', 'ru'] as const;
/** The events list follows new events by itself this often while the tab is visible. */
export const EVENTS_REFRESH_MS = 15_000;
const DELIVERY_COLOR: Record<string, string> = { delivered: 'green', pending: 'yellow', failed: 'red' };

function RuleForm({ teamId }: { teamId: string }) {
  const { t, i18n } = useTranslation();
  const qc = useQueryClient();
  const [kind, setKind] = useState<(typeof KINDS)[number]>('balance_below');
  const [threshold, setThreshold] = useState<number | string>(100);
  const [percent, setPercent] = useState<number | string>(80);
  const [period, setPeriod] = useState('month');
  const [apiKeyId, setApiKeyId] = useState<string | null>(null);
  const [windowMinutes, setWindowMinutes] = useState<number | string>(5);
  const [channel, setChannel] = useState<(typeof CHANNELS)[number]>('webhook');
  const [target, setTarget] = useState('');
  const [chatId, setChatId] = useState('');
  // the channel's messages are written in the language of whoever sets it up, unless changed
  const [language, setLanguage] = useState<(typeof LANGUAGES)[number]>(i18n.language === 'ru' ? 'ru' : 'en');
  const keys = useQuery({
    queryKey: ['keys', teamId],
    queryFn: async () =>
      unwrap(await api.GET('/api/v1/teams/{team_id}/api-keys', { params: { path: { team_id: teamId } } })),
  });
  const create = useMutation({
    mutationFn: async () => {
      const ch =
        channel === 'webhook'
          ? { type: channel, url: target.trim(), language }
          : channel === 'email'
            ? {
                type: channel,
                to: target
                  .split(',')
                  .map((s) => s.trim())
                  .filter(Boolean),
                language,
              }
            : { type: channel, bot_token: target.trim(), chat_id: chatId.trim(), language };
      const params =
        kind === 'balance_below'
          ? { threshold_rub: Number(threshold) }
          : kind === 'budget_used'
            ? { period, percent: [Number(percent)], ...(apiKeyId ? { api_key_id: apiKeyId } : {}) }
            : { percent: Number(percent), window_minutes: Number(windowMinutes) };
      const body = { kind, channels: [ch], ...params } as unknown as CreateBody;
      return unwrap(await api.POST('/api/v1/teams/{team_id}/alerts', { params: { path: { team_id: teamId } }, body }));
    },
    onSuccess: () => {
      setTarget('');
      setChatId('');
      void qc.invalidateQueries({ queryKey: ['alerts', teamId] });
    },
  });
  const secret = (create.data?.channels ?? []).map((c) => c.secret).find(Boolean);
  return (
    <Paper withBorder p="md" data-testid="alert-rule-form">
      <form
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          create.mutate();
        }}
      >
        <Stack gap="sm">
          <Title order={2} size="h4">
            {t('teamAdmin.alerts.newRule')}
          </Title>
          <SimpleGrid cols={{ base: 1, sm: 3 }}>
            <Select
              label={t('teamAdmin.alerts.kind')}
              data={KINDS.map((k) => ({ value: k, label: t(`teamAdmin.alerts.kinds.${k}`) }))}
              value={kind}
              onChange={(v) => setKind((v as typeof kind) ?? 'balance_below')}
              allowDeselect={false}
            />
            {kind === 'balance_below' && (
              <NumberInput
                label={t('teamAdmin.alerts.thresholdRub')}
                min={0}
                value={threshold}
                onChange={setThreshold}
              />
            )}
            {kind !== 'balance_below' && (
              <NumberInput
                label={t('teamAdmin.alerts.percent')}
                min={1}
                max={100}
                value={percent}
                onChange={setPercent}
              />
            )}
            {kind === 'budget_used' && (
              <>
                <Select
                  label={t('teamAdmin.alerts.period')}
                  data={['day', 'month'].map((p) => ({ value: p, label: t(`teamAdmin.alerts.periods.${p as 'day'}`) }))}
                  value={period}
                  onChange={(v) => setPeriod(v ?? 'month')}
                  allowDeselect={false}
                />
                <Select
                  label={t('teamAdmin.alerts.apiKey')}
                  data={(keys.data?.data ?? [])
                    .filter((k) => !k.revoked)
                    .map((k) => ({ value: k.id, label: `${(k.name as string | null) ?? ''} ${k.prefix}…`.trim() }))}
                  value={apiKeyId}
                  onChange={setApiKeyId}
                  clearable
                />
              </>
            )}
            {kind === 'error_rate' && (
              <NumberInput
                label={t('teamAdmin.alerts.windowMinutes')}
                min={1}
                value={windowMinutes}
                onChange={setWindowMinutes}
              />
            )}
          </SimpleGrid>
          <SimpleGrid cols={{ base: 1, sm: 4 }}>
            <Select
              label={t('teamAdmin.alerts.channelType')}
              data={CHANNELS.map((c) => ({ value: c, label: t(`teamAdmin.alerts.channelTypes.${c}`) }))}
              value={channel}
              onChange={(v) => setChannel((v as typeof channel) ?? 'webhook')}
              allowDeselect={false}
            />
            <TextInput
              label={t(
                channel === 'webhook'
                  ? 'teamAdmin.alerts.url'
                  : channel === 'email'
                    ? 'teamAdmin.alerts.emails'
                    : 'teamAdmin.alerts.botToken',
              )}
              required
              value={target}
              onChange={(e) => setTarget(e.currentTarget.value)}
            />
            {channel === 'telegram' && (
              <TextInput
                label={t('teamAdmin.alerts.chatId')}
                required
                value={chatId}
                onChange={(e) => setChatId(e.currentTarget.value)}
              />
            )}
            <Select
              label={t('teamAdmin.alerts.language')}
              description={t('teamAdmin.alerts.languageHint')}
              data={LANGUAGES.map((l) => ({ value: l, label: t(`teamAdmin.alerts.languages.${l}`) }))}
              value={language}
              onChange={(v) => setLanguage((v as typeof language) ?? 'en')}
              allowDeselect={false}
            />
          </SimpleGrid>
          <Group>
            <Button type="submit" loading={create.isPending} disabled={!target.trim()}>
              {t('teamAdmin.alerts.create')}
            </Button>
          </Group>
          <ErrorAlert error={create.error} />
          {secret && (
            <Alert color="yellow" title={t('teamAdmin.alerts.secretTitle')} data-testid="webhook-secret">
              <Stack gap={4}>
                <Text size="sm">{t('teamAdmin.alerts.secretHint')}</Text>
                <Group wrap="nowrap">
                  <Code>{secret}</Code>
                  <CopyValue
                    value={secret}
                    label={t('common.copyNamed', { name: t('teamAdmin.alerts.secretTitle') })}
                  />
                </Group>
              </Stack>
            </Alert>
          )}
        </Stack>
      </form>
    </Paper>
  );
}

function condition(rule: Rule, t: ReturnType<typeof useTranslation>['t'], lang: string): string {
  const kind = t(`teamAdmin.alerts.kinds.${rule.kind as 'balance_below'}`);
  const pct = ([] as unknown[]).concat(rule.percent ?? []).join(', ');
  if (rule.kind === 'balance_below') return `${kind} ${formatRub(rule.threshold_rub as number | null, lang)}`;
  if (rule.kind === 'budget_used')
    return `${kind}: ${pct} % / ${t(`teamAdmin.alerts.periods.${(rule.period ?? 'month') as 'day'}`)}`;
  return `${kind} ${pct} % / ${String(rule.window_minutes)} min`;
}

function Rules({ teamId }: { teamId: string }) {
  const { t, i18n } = useTranslation();
  const qc = useQueryClient();
  const rules = useQuery({
    queryKey: ['alerts', teamId],
    queryFn: async () =>
      unwrap(await api.GET('/api/v1/teams/{team_id}/alerts', { params: { path: { team_id: teamId } } })),
  });
  const test = useMutation({
    mutationFn: async (alertId: string) =>
      unwrap(
        await api.POST('/api/v1/teams/{team_id}/alerts/{alert_id}/test', {
          params: { path: { team_id: teamId, alert_id: alertId } },
        }),
      ),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['alert-events', teamId] }),
  });
  const remove = useMutation({
    mutationFn: async (alertId: string) =>
      unwrap(
        await api.DELETE('/api/v1/teams/{team_id}/alerts/{alert_id}', {
          params: { path: { team_id: teamId, alert_id: alertId } },
        }),
      ),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['alerts', teamId] }),
  });
  if (rules.isPending) return <LoadingRows />;
  if (rules.error) return <ErrorAlert error={rules.error} />;
  const rows = rules.data.data;
  return (
    <Stack gap="sm">
      <Title order={2} size="h4">
        {t('teamAdmin.alerts.rules')}
      </Title>
      {test.data && (
        <Alert color="green" data-testid="test-sent">
          {t('teamAdmin.alerts.testSent')}
        </Alert>
      )}
      <ErrorAlert error={test.error ?? remove.error} />
      {rows.length === 0 ? (
        <EmptyState title={t('teamAdmin.alerts.empty')} hint={t('teamAdmin.alerts.emptyHint')} />
      ) : (
        <Table.ScrollContainer minWidth={720}>
          <Table striped aria-label={t('teamAdmin.alerts.rules')}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('teamAdmin.alerts.condition')}</Table.Th>
                <Table.Th>{t('teamAdmin.alerts.channels')}</Table.Th>
                <Table.Th>{t('teamAdmin.alerts.enabled')}</Table.Th>
                <Table.Th>{t('common.actions')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((r) => (
                <Table.Tr key={r.id} data-testid={`alert-rule-${r.id}`}>
                  <Table.Td>{condition(r, t, i18n.language)}</Table.Td>
                  <Table.Td>
                    <Stack gap={2}>
                      {r.channels.map((c, i) => (
                        <Text size="xs" key={i}>
                          {t(`teamAdmin.alerts.channelTypes.${c.type as 'webhook'}`)}:{' '}
                          {(c.url as string | undefined) ?? ((c.to as string[] | undefined) ?? []).join(', ') ?? ''}
                          {c.chat_id ? String(c.chat_id) : ''} ·{' '}
                          <span data-testid="alert-channel-language">
                            {t(`teamAdmin.alerts.languages.${c.language === 'ru' ? 'ru' : 'en'}`)}
                          </span>
                        </Text>
                      ))}
                    </Stack>
                  </Table.Td>
                  <Table.Td>
                    <Badge color={r.enabled ? 'green' : 'gray'} variant="light">
                      {r.enabled ? t('teamAdmin.alerts.enabled') : t('teamAdmin.alerts.paused')}
                    </Badge>
                  </Table.Td>
                  <Table.Td>
                    <Group gap={6} wrap="nowrap">
                      <Button
                        size="xs"
                        variant="light"
                        loading={test.isPending && test.variables === r.id}
                        onClick={() => test.mutate(r.id)}
                        aria-label={t('teamAdmin.alerts.sendTestOf', { id: r.id })}
                      >
                        {t('teamAdmin.alerts.sendTest')}
                      </Button>
                      <ConfirmAction
                        label={t('teamAdmin.alerts.delete')}
                        title={t('teamAdmin.alerts.deleteTitle')}
                        body={t('teamAdmin.alerts.deleteBody')}
                        onConfirm={() => remove.mutateAsync(r.id).then(() => undefined)}
                      />
                    </Group>
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

/**
 * An event's message in the console's language, from its kind and observed fields; the server's
 * (English) message only when the fields are missing (an event stored before they were kept).
 */
function useEventText(teamId: string) {
  const { t, i18n } = useTranslation();
  const keys = useQuery({
    queryKey: ['keys', teamId],
    queryFn: async () =>
      unwrap(await api.GET('/api/v1/teams/{team_id}/api-keys', { params: { path: { team_id: teamId } } })),
  });
  const lang = i18n.language;
  const num = (v: number | null | undefined) => formatNumber(v, lang);
  return (e: Event): string => {
    const d = e.details;
    if (e.test) return t('teamAdmin.alerts.testMessage');
    if (!d?.unit) return e.message;
    if (e.kind === 'balance_below')
      return t('teamAdmin.alerts.eventText.balance_below', {
        value: formatRub(e.value, lang),
        threshold: formatRub(e.threshold, lang),
      });
    if (e.kind === 'budget_used') {
      const key = d.api_key_id ? keys.data?.data.find((k) => k.id === d.api_key_id) : undefined;
      const name = key ? ((key.name as string | null) ?? `${key.prefix}…`) : (d.api_key_id ?? '');
      return t('teamAdmin.alerts.eventText.budget_used', {
        whose: d.api_key_id ? t('teamAdmin.alerts.eventText.key', { name }) : t('teamAdmin.alerts.eventText.team'),
        threshold: num(e.threshold),
        period: t(`teamAdmin.alerts.eventText.periods.${d.period === 'day' ? 'day' : 'month'}`),
        spent: formatRub(d.spent_rub, lang),
        budget: formatRub(d.budget_rub, lang),
        value: num(e.value),
      });
    }
    if (e.kind === 'error_rate')
      return t('teamAdmin.alerts.eventText.error_rate', {
        value: num(e.value),
        errors: num(d.errors),
        requests: num(d.requests),
        minutes: num(d.window_minutes),
        threshold: num(e.threshold),
      });
    return e.message;
  };
}

function Events({ teamId }: { teamId: string }) {
  const { t, i18n } = useTranslation();
  const eventText = useEventText(teamId);
  const events = useQuery({
    queryKey: ['alert-events', teamId],
    queryFn: async () =>
      unwrap(
        await api.GET('/api/v1/teams/{team_id}/alerts/events', {
          params: { path: { team_id: teamId }, query: { limit: 50 } },
        }),
      ),
    // deliveries are sent in the background: follow them closely while any is pending; new events
    // appear within EVENTS_REFRESH_MS (react-query pauses the interval while the tab is hidden)
    refetchInterval: (q) =>
      (q.state.data?.data ?? []).some((e: Event) => e.deliveries.some((d) => d.status === 'pending'))
        ? 1500
        : EVENTS_REFRESH_MS,
    refetchIntervalInBackground: false,
  });
  if (events.isPending) return <LoadingRows />;
  if (events.error) return <ErrorAlert error={events.error} />;
  const rows = events.data.data;
  return (
    <Stack gap="sm">
      <Title order={2} size="h4">
        {t('teamAdmin.alerts.events')}
      </Title>
      {rows.length === 0 ? (
        <EmptyState title={t('teamAdmin.alerts.noEvents')} hint={t('teamAdmin.alerts.noEventsHint')} />
      ) : (
        <Table.ScrollContainer minWidth={720}>
          <Table striped aria-label={t('teamAdmin.alerts.events')}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('teamAdmin.alerts.firedAt')}</Table.Th>
                <Table.Th>{t('teamAdmin.alerts.condition')}</Table.Th>
                <Table.Th>{t('teamAdmin.alerts.message')}</Table.Th>
                <Table.Th>{t('teamAdmin.alerts.deliveries')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((e) => (
                <Table.Tr key={e.id} data-testid={`alert-event-${e.id}`}>
                  <Table.Td style={{ whiteSpace: 'nowrap' }}>{formatDate(e.fired_at, i18n.language)}</Table.Td>
                  <Table.Td>
                    <Group gap={4}>
                      <Text size="sm">{t(`teamAdmin.alerts.kinds.${e.kind as 'balance_below'}`)}</Text>
                      {e.test && (
                        <Badge size="sm" variant="outline">
                          {t('teamAdmin.alerts.test')}
                        </Badge>
                      )}
                    </Group>
                  </Table.Td>
                  <Table.Td>
                    <Text size="xs" title={e.message} data-testid="alert-event-text">
                      {eventText(e)}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <Stack gap={4}>
                      {e.deliveries.map((d) => {
                        const last = d.attempts[d.attempts.length - 1];
                        const result = last ? (last.status_code ?? (last.error as string | null) ?? '—') : '—';
                        return (
                          <Group gap={6} key={d.id}>
                            <Text size="xs">{t(`teamAdmin.alerts.channelTypes.${d.channel_type as 'webhook'}`)}</Text>
                            <Badge
                              size="sm"
                              color={DELIVERY_COLOR[d.status] ?? 'gray'}
                              variant="light"
                              style={{ flexShrink: 0, overflow: 'visible' }}
                            >
                              {t(`teamAdmin.alerts.statuses.${d.status as 'pending'}`)}
                            </Badge>
                            <Text size="xs" c="dimmed">
                              {t('teamAdmin.alerts.attempts', { count: d.attempts.length })}
                              {last ? ` · ${t('teamAdmin.alerts.lastAttempt', { result: String(result) })}` : ''}
                            </Text>
                          </Group>
                        );
                      })}
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

/** A team's alert rules with their channels, "send a test", and the events with every delivery attempt. */
export function AlertsPage() {
  const { t } = useTranslation();
  const auth = useAuth();
  const teamId = auth.teamId ?? '';
  return (
    <Stack>
      <PageHeader title={t('teamAdmin.alerts.title')} description={t('teamAdmin.alerts.subtitle')} />
      <RuleForm teamId={teamId} />
      <Rules teamId={teamId} />
      <Events teamId={teamId} />
    </Stack>
  );
}
