import { useTranslation } from 'react-i18next';
import { useMutation } from '@tanstack/react-query';
import { Paper, Stack, Text, Title } from '@mantine/core';
import { api, unwrap } from '../../api/client';
import { ConfirmAction, ErrorAlert } from '../../components/common';

/**
 * Deletes a team (its owner, or an operator) after a confirmation. The server refuses while the team
 * holds money or a request is in progress; its message is shown as it came.
 */
export function DeleteTeam({
  teamId,
  teamName,
  onDeleted,
}: {
  teamId: string;
  teamName: string;
  onDeleted: () => void | Promise<void>;
}) {
  const { t } = useTranslation();
  const remove = useMutation({
    mutationFn: async () =>
      unwrap(await api.DELETE('/api/v1/teams/{team_id}', { params: { path: { team_id: teamId } } })),
    onSuccess: onDeleted,
  });
  return (
    <Paper withBorder p="md" radius="md">
      <Stack gap="xs" align="flex-start">
        <Title order={2} size="h5">
          {t('team.dangerZone')}
        </Title>
        <Text size="sm" c="dimmed">
          {t('team.deleteHint')}
        </Text>
        <ConfirmAction
          label={t('team.delete')}
          title={t('team.deleteTitle', { name: teamName })}
          body={t('team.deleteBody', { name: teamName })}
          busy={remove.isPending}
          onConfirm={() =>
            remove.mutateAsync().then(
              () => undefined,
              () => undefined,
            )
          }
        />
        <ErrorAlert error={remove.error} />
      </Stack>
    </Paper>
  );
}
