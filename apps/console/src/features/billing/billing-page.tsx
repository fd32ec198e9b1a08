import { useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Badge, Button, Group, NumberInput, Paper, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { useAuth, usePermissions } from '../../auth/auth-context';
import { EmptyState, ErrorAlert, LoadingRows, PageHeader } from '../../components/common';
import { formatDate, formatRub } from '../../i18n';
import { useBalance } from '../usage/usage-queries';
import { TeamDocuments } from '../documents/team-documents';

type Payment = components['schemas']['PaymentDto'];
const FINAL = new Set(['succeeded', 'canceled', 'failed']);
const STATUS_COLOR: Record<string, string> = { pending: 'yellow', succeeded: 'green', canceled: 'gray', failed: 'red' };

function StatusBadge({ status }: { status: string }) {
  const { t } = useTranslation();
  return (
    <Badge color={STATUS_COLOR[status] ?? 'gray'} variant="light">
      {t(`billing.status.${status as 'pending'}`)}
    </Badge>
  );
}

function usePaymentsSettings() {
  return useQuery({
    queryKey: ['payments-settings'],
    queryFn: async () => unwrap(await api.GET('/api/v1/payments/settings')),
  });
}

/** The payment the payer came back from YooKassa with, followed until final. */
function ReturnedPayment({ teamId, paymentId }: { teamId: string; paymentId: string }) {
  const { t, i18n } = useTranslation();
  const qc = useQueryClient();
  const payment = useQuery({
    queryKey: ['payment', teamId, paymentId],
    queryFn: async () =>
      unwrap(
        await api.GET('/api/v1/teams/{team_id}/payments/{payment_id}', {
          params: { path: { team_id: teamId, payment_id: paymentId } },
        }),
      ),
    refetchInterval: (q) => (q.state.data && FINAL.has(q.state.data.status) ? false : 1500),
  });
  const status = payment.data?.status;
  useEffect(() => {
    if (status && FINAL.has(status)) {
      void qc.invalidateQueries({ queryKey: ['balance'] });
      void qc.invalidateQueries({ queryKey: ['payments', teamId] });
    }
  }, [status, qc, teamId]);
  if (payment.error) return <ErrorAlert error={payment.error} />;
  if (!payment.data) return null;
  const p = payment.data;
  const color = p.status === 'succeeded' ? 'green' : p.status === 'pending' ? 'blue' : 'gray';
  return (
    <Alert color={color} title={t('billing.returned.title')} data-testid="returned-payment">
      <Group gap="xs">
        <Text size="sm">{formatRub(p.amount_rub, i18n.language)}</Text>
        <StatusBadge status={p.status} />
        <Text size="sm">{t(`billing.returned.${p.status as 'pending'}`)}</Text>
      </Group>
    </Alert>
  );
}

function TopUpForm({ teamId, presets, min, max }: { teamId: string; presets: number[]; min: number; max: number }) {
  const { t, i18n } = useTranslation();
  const [amount, setAmount] = useState<number | string>(presets[1] ?? presets[0] ?? min);
  const create = useMutation({
    mutationFn: async () =>
      unwrap(
        await api.POST('/api/v1/teams/{team_id}/payments', {
          params: { path: { team_id: teamId } },
          body: { amount_rub: Number(amount), return_url: `${window.location.origin}/billing` },
        }),
      ),
    onSuccess: (p) => {
      if (p.confirmation_url) window.location.assign(p.confirmation_url);
    },
  });
  return (
    <Paper withBorder p="md">
      <form
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          create.mutate();
        }}
      >
        <Stack gap="sm">
          <Title order={2} size="h4">
            {t('billing.topUp.title')}
          </Title>
          <Group gap="xs">
            {presets.map((v) => (
              <Button
                key={v}
                variant={Number(amount) === v ? 'filled' : 'default'}
                size="xs"
                onClick={() => setAmount(v)}
              >
                {formatRub(v, i18n.language)}
              </Button>
            ))}
          </Group>
          <Group align="flex-end">
            <NumberInput
              label={t('billing.topUp.amount')}
              min={min}
              max={max}
              decimalScale={2}
              value={amount}
              onChange={setAmount}
              w={200}
            />
            <Button
              type="submit"
              loading={create.isPending}
              disabled={!(Number(amount) >= min && Number(amount) <= max)}
            >
              {t('billing.topUp.submit')}
            </Button>
          </Group>
          <Text size="xs" c="dimmed">
            {t('billing.topUp.hint', { min: formatRub(min, i18n.language), max: formatRub(max, i18n.language) })}
          </Text>
          <ErrorAlert error={create.error} />
        </Stack>
      </form>
    </Paper>
  );
}

function RedeemForm({ teamId }: { teamId: string }) {
  const { t, i18n } = useTranslation();
  const qc = useQueryClient();
  const [code, setCode] = useState('');
  const redeem = useMutation({
    mutationFn: async () =>
      unwrap(
        await api.POST('/api/v1/teams/{team_id}/redeem', {
          params: { path: { team_id: teamId } },
          body: { code: code.trim() },
        }),
      ),
    onSuccess: () => {
      setCode('');
      void qc.invalidateQueries({ queryKey: ['balance'] });
    },
  });
  return (
    <Paper withBorder p="md">
      <form
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          redeem.mutate();
        }}
      >
        <Stack gap="sm">
          <Title order={2} size="h4">
            {t('billing.redeem.title')}
          </Title>
          <Group align="flex-end">
            <TextInput
              label={t('billing.redeem.code')}
              placeholder="RC-XXXXXXXXXXXXXXXXXXXX"
              value={code}
              onChange={(e) => setCode(e.currentTarget.value)}
              w={320}
            />
            <Button type="submit" loading={redeem.isPending} disabled={!code.trim()}>
              {t('billing.redeem.submit')}
            </Button>
          </Group>
          {redeem.data && (
            <Alert color="green" data-testid="redeemed">
              {t('billing.redeem.done', { amount: formatRub(redeem.data.credited_rub, i18n.language) })}
            </Alert>
          )}
          <ErrorAlert error={redeem.error} />
        </Stack>
      </form>
    </Paper>
  );
}

function History({ teamId }: { teamId: string }) {
  const { t, i18n } = useTranslation();
  const [pages, setPages] = useState<string[]>([]);
  const after = pages[pages.length - 1];
  const list = useQuery({
    queryKey: ['payments', teamId, after],
    queryFn: async () =>
      unwrap(
        await api.GET('/api/v1/teams/{team_id}/payments', {
          params: { path: { team_id: teamId }, query: { limit: 20, after } },
        }),
      ),
  });
  if (list.isPending) return <LoadingRows />;
  if (list.error) return <ErrorAlert error={list.error} />;
  const rows: Payment[] = list.data.data;
  return (
    <Stack gap="sm">
      <Title order={2} size="h4">
        {t('billing.history.title')}
      </Title>
      {rows.length === 0 ? (
        <EmptyState title={t('billing.history.empty')} hint={t('billing.history.emptyHint')} />
      ) : (
        <Table.ScrollContainer minWidth={640}>
          <Table striped aria-label={t('billing.history.title')}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('billing.history.date')}</Table.Th>
                <Table.Th>{t('billing.history.amount')}</Table.Th>
                <Table.Th>{t('billing.history.status')}</Table.Th>
                <Table.Th>{t('billing.history.credited')}</Table.Th>
                <Table.Th>{t('billing.history.reason')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((p) => (
                <Table.Tr key={p.id}>
                  <Table.Td>{formatDate(p.created_at, i18n.language)}</Table.Td>
                  <Table.Td>{formatRub(p.amount_rub, i18n.language)}</Table.Td>
                  <Table.Td>
                    <StatusBadge status={p.status} />
                  </Table.Td>
                  <Table.Td>{p.credited_rub === null ? '—' : formatRub(p.credited_rub, i18n.language)}</Table.Td>
                  <Table.Td>{p.cancellation_reason ?? ''}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      <Group>
        {pages.length > 0 && (
          <Button variant="default" size="xs" onClick={() => setPages(pages.slice(0, -1))}>
            {t('billing.history.newer')}
          </Button>
        )}
        {list.data.has_more && list.data.next_cursor && (
          <Button variant="default" size="xs" onClick={() => setPages([...pages, list.data.next_cursor!])}>
            {t('billing.history.older')}
          </Button>
        )}
      </Group>
    </Stack>
  );
}

/**
 * The team's money in: balance, top-up through YooKassa (owner/admin; hidden when payments are not
 * configured), the payment the payer just came back with (followed until final), the payment
 * history, redemption codes (member and up), and paying by bank transfer: company requisites,
 * invoices and monthly acts (owner/admin issue; every role downloads). Viewers see and download only.
 */
export function BillingPage() {
  const { t, i18n } = useTranslation();
  const auth = useAuth();
  const can = usePermissions();
  const [params] = useSearchParams();
  const settings = usePaymentsSettings();
  const balance = useBalance();
  const teamId = auth.teamId;
  const returnedTeam = params.get('team_id');
  useEffect(() => {
    if (returnedTeam && returnedTeam !== auth.teamId && auth.memberships.some((m) => m.teamId === returnedTeam))
      auth.switchTeam(returnedTeam);
  }, [returnedTeam, auth]);
  if (!teamId) return <EmptyState title={t('billing.noTeam')} hint={t('billing.noTeamHint')} />;
  const canPay = auth.role === 'owner' || auth.role === 'admin' || auth.isOperator;
  const enabled = settings.data?.enabled === true;
  const paymentId = params.get('payment_id');
  return (
    <Stack>
      <PageHeader title={t('billing.title')} description={t('billing.description')} />
      <ErrorAlert error={balance.error ?? settings.error} />
      <Paper withBorder p="md">
        <Text size="xs" c="dimmed" tt="uppercase" fw={700}>
          {t('billing.balance')}
        </Text>
        <Text fz={28} fw={700} data-testid="billing-balance">
          {formatRub(balance.data?.balance_rub, i18n.language)}
        </Text>
      </Paper>
      {enabled && paymentId && (!returnedTeam || returnedTeam === teamId) && (
        <ReturnedPayment teamId={teamId} paymentId={paymentId} />
      )}
      {enabled && canPay && settings.data && (
        <TopUpForm
          teamId={teamId}
          presets={settings.data.presets}
          min={settings.data.min_rub}
          max={settings.data.max_rub}
        />
      )}
      {can.canWrite && <RedeemForm teamId={teamId} />}
      {enabled && <History teamId={teamId} />}
      <TeamDocuments teamId={teamId} canManage={canPay} />
      <Text size="xs" c="dimmed">
        {t('billing.refunds')}
      </Text>
    </Stack>
  );
}
