import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Alert, Badge, Button, Group, Paper, Stack, Table, Text, Title, Tooltip } from '@mantine/core';
import { api, unwrap } from '../../api/client';
import { useAuth } from '../../auth/auth-context';
import { ConfirmAction, EmptyState, ErrorAlert, LoadingRows, PageHeader } from '../../components/common';
import { formatDate, formatNumber, formatRub } from '../../i18n';
import { mcpPermissions, useMcpServers, useMcpTools, type McpServer } from './mcp-queries';
import { ServerFormModal } from './server-form';
import { TestCall } from './test-call';
import { ToolList } from './tool-list';

const STATUS_COLOR: Record<string, string> = { ok: 'teal', error: 'red', unknown: 'gray' };

function StatusBadge({ server }: { server: McpServer }) {
  const { t } = useTranslation();
  const label = t(`mcp.statuses.${server.status}`, { defaultValue: server.status });
  const badge = (
    <Badge color={STATUS_COLOR[server.status] ?? 'gray'} variant="light" tt="none">
      {label}
    </Badge>
  );
  const why = server.status_error as string | null;
  return why ? (
    <Tooltip label={why} multiline maw={360} withArrow>
      <span tabIndex={0}>{badge}</span>
    </Tooltip>
  ) : (
    badge
  );
}

/** One server opened: its tools, and the test call for those who may call. */
function ServerDetail({ teamId, server, canCall }: { teamId: string; server: McpServer; canCall: boolean }) {
  const { t } = useTranslation();
  const tools = useMcpTools(teamId, server.id);
  const list = tools.data?.data ?? [];
  return (
    <Paper withBorder p="md" radius="md" data-testid="mcp-server-detail">
      <Stack>
        <Title order={2} size="h4">
          {t('mcp.detail.title', { name: server.name })}
        </Title>
        {server.status === 'error' && (
          <Alert color="red">{t('mcp.detail.statusError', { error: server.status_error ?? '' })}</Alert>
        )}
        <ErrorAlert error={tools.error} />
        {tools.isPending ? <LoadingRows /> : <ToolList tools={list} />}
        <Title order={3} size="h5">
          {t('mcp.call.title')}
        </Title>
        {canCall ? (
          <>
            <Text size="sm" c="dimmed">
              {t('mcp.call.hint')}
            </Text>
            <TestCall key={server.id} teamId={teamId} serverId={server.id} tools={list} />
          </>
        ) : (
          <Text size="sm" c="dimmed">
            {t('mcp.call.viewerHint')}
          </Text>
        )}
      </Stack>
    </Paper>
  );
}

export function McpPage() {
  const { t, i18n } = useTranslation();
  const lang = i18n.language;
  const auth = useAuth();
  const can = mcpPermissions(auth.role, auth.isOperator);
  const qc = useQueryClient();
  const teamId = auth.teamId ?? '';
  const servers = useMcpServers(teamId, auth.mode === 'session');
  const [selected, setSelected] = useState<string | null>(null);
  const [editing, setEditing] = useState<McpServer | null>(null);
  const [formOpen, setFormOpen] = useState(false);
  const done = () => {
    void qc.invalidateQueries({ queryKey: ['mcp-servers'] });
    void qc.invalidateQueries({ queryKey: ['mcp-tools'] });
  };
  const refresh = useMutation({
    mutationFn: async (id: string) =>
      unwrap(
        await api.POST('/api/v1/teams/{team_id}/mcp-servers/{id}/refresh', {
          params: { path: { team_id: teamId, id } },
        }),
      ),
    onSuccess: done,
  });
  const remove = useMutation({
    mutationFn: async (id: string) =>
      unwrap(
        await api.DELETE('/api/v1/teams/{team_id}/mcp-servers/{id}', { params: { path: { team_id: teamId, id } } }),
      ),
    onSuccess: (_, id) => {
      if (selected === id) setSelected(null);
      done();
    },
  });
  const list = servers.data?.data ?? [];
  const current = list.find((s) => s.id === selected) ?? null;
  const openForm = (s: McpServer | null) => {
    setEditing(s);
    setFormOpen(true);
  };
  const addButton = can.canManage && <Button onClick={() => openForm(null)}>{t('mcp.add')}</Button>;
  return (
    <Stack>
      <PageHeader title={t('mcp.title')} description={t('mcp.subtitle')} actions={addButton} />
      {!can.canManage && <Alert color="blue">{t('mcp.readOnly')}</Alert>}
      <ErrorAlert error={servers.error ?? refresh.error ?? remove.error} />
      {servers.isPending ? (
        <LoadingRows />
      ) : list.length === 0 ? (
        <EmptyState
          title={t('mcp.empty')}
          hint={can.canManage ? t('mcp.emptyHint') : t('mcp.emptyViewer')}
          action={addButton}
        />
      ) : (
        <Table.ScrollContainer minWidth={980}>
          <Table highlightOnHover aria-label={t('mcp.title')}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('mcp.name')}</Table.Th>
                <Table.Th>{t('mcp.url')}</Table.Th>
                <Table.Th>{t('mcp.transport')}</Table.Th>
                <Table.Th>{t('mcp.status')}</Table.Th>
                <Table.Th>{t('mcp.tools')}</Table.Th>
                <Table.Th>{t('mcp.price')}</Table.Th>
                <Table.Th>{t('mcp.refreshed')}</Table.Th>
                <Table.Th>{t('common.actions')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {list.map((s) => (
                <Table.Tr key={s.id} data-testid={`mcp-row-${s.name}`}>
                  <Table.Td>
                    <Text fw={600} translate="no">
                      {s.name}
                    </Text>
                    {s.description && (
                      <Text size="xs" c="dimmed" lineClamp={2} translate="no">
                        {s.description as string}
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm" style={{ wordBreak: 'break-all' }}>
                      {s.url}
                    </Text>
                  </Table.Td>
                  <Table.Td>{t(`mcp.transports.${s.transport}`, { defaultValue: s.transport })}</Table.Td>
                  <Table.Td>
                    <StatusBadge server={s} />
                  </Table.Td>
                  <Table.Td>{formatNumber(s.tool_count, lang)}</Table.Td>
                  <Table.Td>
                    {s.price_per_call_rub > 0 ? formatRub(s.price_per_call_rub, lang) : t('mcp.free')}
                  </Table.Td>
                  <Table.Td>{formatDate(s.tools_refreshed_at as string | null, lang)}</Table.Td>
                  <Table.Td>
                    <Group gap={6} wrap="nowrap">
                      <Button
                        size="xs"
                        variant={selected === s.id ? 'filled' : 'light'}
                        aria-label={t('mcp.open', { name: s.name })}
                        aria-pressed={selected === s.id}
                        onClick={() => setSelected(s.id)}
                      >
                        {t('mcp.tools')}
                      </Button>
                      {can.canManage && (
                        <>
                          <Button
                            size="xs"
                            variant="light"
                            aria-label={t('mcp.editOf', { name: s.name })}
                            onClick={() => openForm(s)}
                          >
                            {t('mcp.edit')}
                          </Button>
                          <Button
                            size="xs"
                            variant="light"
                            aria-label={t('mcp.refreshOf', { name: s.name })}
                            loading={refresh.isPending && refresh.variables === s.id}
                            onClick={() => refresh.mutate(s.id)}
                          >
                            {t('mcp.refresh')}
                          </Button>
                          <ConfirmAction
                            label={t('common.delete')}
                            title={t('mcp.deleteTitle')}
                            body={t('mcp.deleteBody', { name: s.name })}
                            onConfirm={() => remove.mutateAsync(s.id).then(() => undefined)}
                          />
                        </>
                      )}
                    </Group>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {current && <ServerDetail teamId={teamId} server={current} canCall={can.canCall} />}
      <ServerFormModal
        teamId={teamId}
        server={editing}
        opened={formOpen}
        onClose={() => setFormOpen(false)}
        onSaved={(s) => setSelected(s.id)}
      />
    </Stack>
  );
}
