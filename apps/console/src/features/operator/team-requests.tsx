import { useTranslation } from 'react-i18next';
import { useInfiniteQuery } from '@tanstack/react-query';
import { Button, Group, Stack, Text } from '@mantine/core';
import { api, unwrap } from '../../api/client';
import { ErrorAlert, LoadingRows } from '../../components/common';
import { RequestsTable } from '../requests/requests-page';

/** A team's request log as the operator reads it (`team_id`), newest first with "Load more". */
export function TeamRequests({ teamId }: { teamId: string }) {
  const { t } = useTranslation();
  const log = useInfiniteQuery({
    queryKey: ['admin-requests', teamId],
    initialPageParam: undefined as string | undefined,
    queryFn: async ({ pageParam }) =>
      unwrap(
        await api.GET('/api/v1/requests', { params: { query: { team_id: teamId, limit: 25, cursor: pageParam } } }),
      ),
    getNextPageParam: (last) => (last.has_more && last.next_cursor ? last.next_cursor : undefined),
  });
  const rows = (log.data?.pages ?? []).flatMap((p) => p.data);
  if (log.isPending) return <LoadingRows />;
  if (log.error) return <ErrorAlert error={log.error} />;
  if (rows.length === 0) return <Text size="sm">{t('requests.empty')}</Text>;
  return (
    <Stack>
      <RequestsTable rows={rows} keyLabels={new Map()} />
      {log.hasNextPage && (
        <Group justify="center">
          <Button variant="default" loading={log.isFetchingNextPage} onClick={() => void log.fetchNextPage()}>
            {t('requests.more')}
          </Button>
        </Group>
      )}
    </Stack>
  );
}
