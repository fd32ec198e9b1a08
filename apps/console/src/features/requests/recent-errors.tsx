import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { Anchor, Group, Paper, Table, Text, Title } from '@mantine/core';
import { ErrorAlert, LoadingRows } from '../../components/common';
import { endpointLabel, formatDate } from '../../i18n';
import { StatusBadge } from './request-drawer';
import { useRequestLog } from './request-queries';

/** The overview's last failed or refused calls, each linking to its detail on the Requests page. */
export function RecentErrors() {
  const { t, i18n } = useTranslation();
  const errors = useRequestLog({ status: 'error' }, 5);
  const rows = errors.data?.pages[0]?.data ?? [];
  return (
    <Paper withBorder p="md" radius="md">
      <Group justify="space-between" mb="sm">
        <Title order={2} size="h4">
          {t('overview.recentErrors')}
        </Title>
        <Anchor component={Link} to="/requests?status=error" size="sm">
          {t('overview.allErrors')}
        </Anchor>
      </Group>
      <ErrorAlert error={errors.error} />
      {errors.isPending ? (
        <LoadingRows rows={3} />
      ) : rows.length === 0 ? (
        <Text c="dimmed" size="sm">
          {t('overview.noErrors')}
        </Text>
      ) : (
        <Table.ScrollContainer minWidth={640}>
          <Table aria-label={t('overview.recentErrors')}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('requests.time')}</Table.Th>
                <Table.Th>{t('requests.endpoint')}</Table.Th>
                <Table.Th>{t('requests.model')}</Table.Th>
                <Table.Th>{t('requests.status')}</Table.Th>
                <Table.Th>{t('requests.errorCode')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((r) => (
                <Table.Tr key={r.id}>
                  <Table.Td>
                    <Anchor component={Link} to={`/requests?status=error&id=${encodeURIComponent(r.id)}`}>
                      {formatDate(r.created_at, i18n.language)}
                    </Anchor>
                  </Table.Td>
                  <Table.Td>{endpointLabel(r.endpoint)}</Table.Td>
                  <Table.Td>{r.served_model ?? r.model ?? '—'}</Table.Td>
                  <Table.Td>
                    <StatusBadge status={r.status} />
                  </Table.Td>
                  <Table.Td>{r.error_code ?? '—'}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </Paper>
  );
}
