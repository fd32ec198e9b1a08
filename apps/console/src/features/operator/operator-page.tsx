import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  Button,
  Group,
  NumberInput,
  Paper,
  Stack,
  Table,
  Tabs,
  Text,
  TextInput,
  Title,
  UnstyledButton,
} from '@mantine/core';
import { api, unwrap } from '../../api/client';
import { EmptyState, ErrorAlert, LoadingRows, PageHeader } from '../../components/common';
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
import { UsersPanel } from './users-panel';
import { SellerPanel, StatementsPanel, TeamInvoicesPanel } from '../documents/operator-documents';
import { AllTeamsUsage } from './all-teams-usage';
import { CatalogEditor } from '../models/catalog-editor';
import { TeamBalance } from './team-balance';
import { TeamPeople } from './team-people';
import { TeamPrices } from './team-prices';
import { TeamRequests } from './team-requests';
import { TeamSettings } from './team-settings';
import { TeamUsage } from './team-usage';

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
  const auth = useAuth();
  const qc = useQueryClient();
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
        <Tabs defaultValue="members" keepMounted={false}>
          <Tabs.List mb="md">
            <Tabs.Tab value="members">{t('operator.tabMembers')}</Tabs.Tab>
            <Tabs.Tab value="keys">{t('operator.tabKeys')}</Tabs.Tab>
            <Tabs.Tab value="usage">{t('operator.tabUsage')}</Tabs.Tab>
            <Tabs.Tab value="requests">{t('operator.tabRequests')}</Tabs.Tab>
            <Tabs.Tab value="balance">{t('operator.tabBalance')}</Tabs.Tab>
            {auth.isOperator && <Tabs.Tab value="prices">{t('teamPrices.tab')}</Tabs.Tab>}
            <Tabs.Tab value="settings">{t('operator.tabSettings')}</Tabs.Tab>
          </Tabs.List>
          <Tabs.Panel value="members">
            <TeamPeople teamId={teamId} />
          </Tabs.Panel>
          <Tabs.Panel value="keys">
            <Stack>
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
            </Stack>
          </Tabs.Panel>
          <Tabs.Panel value="usage">
            <TeamUsage teamId={teamId} />
          </Tabs.Panel>
          <Tabs.Panel value="requests">
            <TeamRequests teamId={teamId} />
          </Tabs.Panel>
          <Tabs.Panel value="balance">
            <Stack>
              <TeamBalance teamId={teamId} />
              <TeamInvoicesPanel teamId={teamId} />
            </Stack>
          </Tabs.Panel>
          {auth.isOperator && (
            <Tabs.Panel value="prices">
              <TeamPrices teamId={teamId} />
            </Tabs.Panel>
          )}
          <Tabs.Panel value="settings">
            <TeamSettings team={team.data} onDeleted={onDeleted} />
          </Tabs.Panel>
        </Tabs>
        <NewKeySecret created={created} onClose={() => setCreated(null)} />
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
      <Tabs defaultValue="teams" keepMounted={false}>
        <Tabs.List mb="md">
          <Tabs.Tab value="teams">{t('operator.tabTeams')}</Tabs.Tab>
          <Tabs.Tab value="usage">{t('operator.tabAllUsage')}</Tabs.Tab>
          <Tabs.Tab value="models">{t('catalog.tab')}</Tabs.Tab>
          <Tabs.Tab value="documents">{t('operator.tabDocuments')}</Tabs.Tab>
          {auth.mode === 'session' && <Tabs.Tab value="users">{t('operator.tabUsers')}</Tabs.Tab>}
        </Tabs.List>
        <Tabs.Panel value="teams">
          <Stack>
            <CreateTeamForm />
            <ErrorAlert error={teams.error} />
            {teams.isPending ? (
              <LoadingRows />
            ) : list.length === 0 ? (
              <EmptyState title={t('operator.noTeams')} hint={t('operator.noTeamsHint')} />
            ) : (
              <Table.ScrollContainer minWidth={360}>
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
                            <Text c="var(--mantine-color-blue-light-color)">{team.name}</Text>
                          </UnstyledButton>
                        </Table.Td>
                        <Table.Td>{formatRub(team.balance_rub, i18n.language)}</Table.Td>
                      </Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
              </Table.ScrollContainer>
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
          </Stack>
        </Tabs.Panel>
        <Tabs.Panel value="usage">
          <AllTeamsUsage />
        </Tabs.Panel>
        <Tabs.Panel value="models">
          <CatalogEditor />
        </Tabs.Panel>
        <Tabs.Panel value="documents">
          <Stack>
            <SellerPanel />
            <StatementsPanel />
          </Stack>
        </Tabs.Panel>
        {auth.mode === 'session' && (
          <Tabs.Panel value="users">
            <UsersPanel />
          </Tabs.Panel>
        )}
      </Tabs>
    </Stack>
  );
}
