import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Group, NumberInput, Paper, Stack, Table, Text, TextInput, Title, UnstyledButton } from '@mantine/core';
import { api, unwrap } from '../../api/client';
import { EmptyState, ErrorAlert, LoadingRows, PageHeader } from '../../components/common';
import { InviteForm } from '../members/invite-form';
import { formatRub } from '../../i18n';
import { useAuth } from '../../auth/auth-context';
import type { components } from '../../api/schema';
import {
  CreateKeyForm,
  KeysTable,
  NewKeySecret,
  type ApiKey,
  type CreatedKey,
  type KeyLimits,
} from '../keys/keys-table';
import { DeleteTeam } from '../members/delete-team';
import { UsersPanel } from './users-panel';

function CreateTeamForm() {
  const { t } = useTranslation();
  const qc = useQueryClient();
  const [name, setName] = useState('');
  const [balance, setBalance] = useState<number | string>(0);
  const create = useMutation({
    mutationFn: async () =>
      unwrap(await api.POST('/api/v1/admin/teams', { body: { name: name.trim(), balance_rub: Number(balance) || 0 } })),
    onSuccess: () => {
      setName('');
      setBalance(0);
      void qc.invalidateQueries({ queryKey: ['admin-teams'] });
    },
  });
  return (
    <form
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        create.mutate();
      }}
    >
      <Group align="flex-end">
        <TextInput
          label={t('operator.teamName')}
          required
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
        />
        <NumberInput label={t('operator.openingBalance')} min={0} value={balance} onChange={setBalance} w={180} />
        <Button type="submit" loading={create.isPending} disabled={!name.trim()}>
          {t('operator.createTeam')}
        </Button>
      </Group>
      <ErrorAlert error={create.error} />
    </form>
  );
}

function TeamDetail({ teamId, onDeleted }: { teamId: string; onDeleted: () => void }) {
  const { t, i18n } = useTranslation();
  const qc = useQueryClient();
  const [amount, setAmount] = useState<number | string>('');
  const [note, setNote] = useState('');
  const [created, setCreated] = useState<CreatedKey | null>(null);
  const team = useQuery({
    queryKey: ['admin-team', teamId],
    queryFn: async () => unwrap(await api.GET('/api/v1/admin/teams/{id}', { params: { path: { id: teamId } } })),
  });
  const keys = useQuery({
    queryKey: ['admin-keys', teamId],
    queryFn: async () =>
      unwrap(await api.GET('/api/v1/admin/teams/{id}/api-keys', { params: { path: { id: teamId } } })),
  });
  const topUp = useMutation({
    mutationFn: async () =>
      unwrap(
        await api.POST('/api/v1/admin/teams/{id}/top-ups', {
          params: { path: { id: teamId } },
          body: { amount_rub: Number(amount), reference: note.trim() || undefined },
        }),
      ),
    onSuccess: () => {
      setAmount('');
      setNote('');
      void qc.invalidateQueries({ queryKey: ['admin-team', teamId] });
      void qc.invalidateQueries({ queryKey: ['admin-teams'] });
    },
  });
  const createKey = useMutation({
    mutationFn: async (name: string) =>
      unwrap(
        await api.POST('/api/v1/admin/teams/{id}/api-keys', {
          params: { path: { id: teamId } },
          body: name ? { name } : {},
        }),
      ),
    onSuccess: (k) => {
      setCreated(k);
      void qc.invalidateQueries({ queryKey: ['admin-keys', teamId] });
    },
  });
  const revoke = useMutation({
    mutationFn: async (id: string) =>
      unwrap(await api.DELETE('/api/v1/admin/api-keys/{id}', { params: { path: { id } } })),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['admin-keys', teamId] }),
  });
  if (team.isPending) return <LoadingRows />;
  if (team.error) return <ErrorAlert error={team.error} />;
  return (
    <Paper withBorder p="md" radius="md">
      <Stack>
        <Title order={2} size="h4">
          {team.data.name} · {formatRub(team.data.balance_rub, i18n.language)}
        </Title>
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
        <Title order={3} size="h5">
          {t('members.title')}
        </Title>
        <InviteForm teamId={teamId} />
        <Title order={3} size="h5">
          {t('keys.title')}
        </Title>
        <CreateKeyForm onCreate={(n) => createKey.mutate(n)} busy={createKey.isPending} error={createKey.error} />
        <ErrorAlert error={keys.error ?? revoke.error} />
        <KeysTable
          keys={(keys.data?.data ?? []) as ApiKey[]}
          loading={keys.isPending}
          canManage
          onRevoke={(id) => revoke.mutateAsync(id)}
          onSaveLimits={async (id: string, limits: KeyLimits) => {
            const body = limits as unknown as components['schemas']['UpdateApiKeyDto'];
            unwrap(await api.PATCH('/api/v1/admin/api-keys/{id}', { params: { path: { id } }, body }));
            await qc.invalidateQueries({ queryKey: ['admin-keys', teamId] });
          }}
        />
        <NewKeySecret created={created} onClose={() => setCreated(null)} />
        <DeleteTeam teamId={teamId} teamName={team.data.name} onDeleted={onDeleted} />
      </Stack>
    </Paper>
  );
}

export function OperatorPage() {
  const { t, i18n } = useTranslation();
  const auth = useAuth();
  const qc = useQueryClient();
  const [selected, setSelected] = useState<string | null>(null);
  const teams = useQuery({
    queryKey: ['admin-teams'],
    queryFn: async () => unwrap(await api.GET('/api/v1/admin/teams', { params: { query: { limit: 100 } } })),
  });
  const list = (teams.data?.data ?? []) as { id: string; name: string; balance_rub: number }[];
  return (
    <Stack>
      <PageHeader title={t('operator.title')} description={t('operator.subtitle')} />
      <CreateTeamForm />
      <ErrorAlert error={teams.error} />
      {teams.isPending ? (
        <LoadingRows />
      ) : list.length === 0 ? (
        <EmptyState title={t('operator.noTeams')} hint={t('operator.noTeamsHint')} />
      ) : (
        <Table highlightOnHover aria-label={t('operator.teams')}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t('operator.teamName')}</Table.Th>
              <Table.Th>{t('overview.balance')}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {list.map((team) => (
              <Table.Tr key={team.id} bg={team.id === selected ? 'var(--mantine-color-blue-light)' : undefined}>
                <Table.Td>
                  <UnstyledButton
                    onClick={() => setSelected(team.id)}
                    aria-label={t('operator.open', { name: team.name })}
                  >
                    <Text c="blue">{team.name}</Text>
                  </UnstyledButton>
                </Table.Td>
                <Table.Td>{formatRub(team.balance_rub, i18n.language)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      {selected && (
        <TeamDetail
          key={selected}
          teamId={selected}
          onDeleted={() => {
            setSelected(null);
            void qc.invalidateQueries({ queryKey: ['admin-teams'] });
          }}
        />
      )}
      {auth.mode === 'session' && <UsersPanel />}
    </Stack>
  );
}
