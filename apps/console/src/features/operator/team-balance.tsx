import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Badge, Button, Group, NumberInput, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { ErrorAlert, LoadingRows } from '../../components/common';
import { formatDate, formatRub } from '../../i18n';

type TopUp = components['schemas']['TopUpEntryDto'];

/** Who made a top-up: the user's e-mail, else the kind of actor (admin token, server CLI …). */
function ActorLabel({ actor }: { actor: TopUp['actor'] }) {
  const { t } = useTranslation();
  if (!actor) return <>—</>;
  if (actor.email) return <>{actor.email}</>;
  return <>{t(`operator.actor.${actor.type as 'user'}`)}</>;
}

/** Top up with a note; the team's top-ups (note and actor) and, when payments are configured, its online payments. */
export function TeamBalance({ teamId }: { teamId: string }) {
  const { t, i18n } = useTranslation();
  const lang = i18n.language;
  const qc = useQueryClient();
  const [amount, setAmount] = useState<number | string>('');
  const [note, setNote] = useState('');
  const topUps = useQuery({
    queryKey: ['admin-top-ups', teamId],
    queryFn: async () =>
      unwrap(
        await api.GET('/api/v1/admin/teams/{id}/top-ups', { params: { path: { id: teamId }, query: { limit: 50 } } }),
      ),
  });
  const settings = useQuery({
    queryKey: ['payments-settings'],
    queryFn: async () => unwrap(await api.GET('/api/v1/payments/settings')),
  });
  const payments = useQuery({
    queryKey: ['admin-payments', teamId],
    queryFn: async () =>
      unwrap(await api.GET('/api/v1/teams/{team_id}/payments', { params: { path: { team_id: teamId } } })),
    enabled: settings.data?.enabled === true,
  });
  const topUp = useMutation({
    mutationFn: async () =>
      unwrap(
        await api.POST('/api/v1/admin/teams/{id}/top-ups', {
          params: { path: { id: teamId } },
          body: { amount_rub: Number(amount), note: note.trim() || undefined },
        }),
      ),
    onSuccess: () => {
      setAmount('');
      setNote('');
      for (const key of ['admin-team', 'admin-teams', 'admin-top-ups']) void qc.invalidateQueries({ queryKey: [key] });
    },
  });
  const rows = topUps.data?.data ?? [];
  return (
    <Stack>
      <form
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          topUp.mutate();
        }}
      >
        <Group align="flex-end">
          <NumberInput label={t('operator.amount')} min={0.01} required value={amount} onChange={setAmount} w={160} />
          <TextInput label={t('operator.note')} value={note} onChange={(e) => setNote(e.currentTarget.value)} />
          <Button type="submit" loading={topUp.isPending} disabled={!Number(amount)}>
            {t('operator.topUp')}
          </Button>
        </Group>
        <ErrorAlert error={topUp.error} />
      </form>
      <Title order={4} size="h6">
        {t('operator.topUps')}
      </Title>
      <ErrorAlert error={topUps.error} />
      {topUps.isPending ? (
        <LoadingRows />
      ) : rows.length === 0 ? (
        <Text size="sm">{t('operator.noTopUps')}</Text>
      ) : (
        <Table.ScrollContainer minWidth={640}>
          <Table aria-label={t('operator.topUps')}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('requests.time')}</Table.Th>
                <Table.Th>{t('usage.amount')}</Table.Th>
                <Table.Th>{t('operator.note')}</Table.Th>
                <Table.Th>{t('operator.by')}</Table.Th>
                <Table.Th>{t('operator.balanceAfter')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((r) => (
                <Table.Tr key={r.id}>
                  <Table.Td>{formatDate(r.created_at, lang)}</Table.Td>
                  <Table.Td>{formatRub(r.amount_rub, lang)}</Table.Td>
                  <Table.Td>{[r.note, r.reference].filter(Boolean).join(' · ') || '—'}</Table.Td>
                  <Table.Td>
                    <ActorLabel actor={r.actor} />
                  </Table.Td>
                  <Table.Td>{formatRub(r.balance_after_rub, lang)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {settings.data?.enabled && (
        <>
          <Title order={4} size="h6">
            {t('operator.payments')}
          </Title>
          <ErrorAlert error={payments.error} />
          {(payments.data?.data ?? []).length === 0 ? (
            <Text size="sm">{t('operator.noPayments')}</Text>
          ) : (
            <Table.ScrollContainer minWidth={520}>
              <Table aria-label={t('operator.payments')}>
                <Table.Tbody>
                  {(payments.data?.data ?? []).map((p) => (
                    <Table.Tr key={p.id}>
                      <Table.Td>{formatDate(p.created_at, lang)}</Table.Td>
                      <Table.Td>{formatRub(p.amount_rub, lang)}</Table.Td>
                      <Table.Td>
                        <Badge variant="light">{t(`billing.status.${p.status}`)}</Badge>
                      </Table.Td>
                      <Table.Td>{p.receipt_email ?? '—'}</Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          )}
        </>
      )}
    </Stack>
  );
}
