import { useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Group, NumberInput, Paper, Select, Stack, Text, Title } from '@mantine/core';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { ErrorAlert, LoadingRows } from '../../components/common';

type Level = components['schemas']['UpdateTeamSettingsDto']['request_log_bodies'] & string;
const LEVELS: Level[] = ['none', 'metadata', 'full'];

/** An empty field means "the server default" (sent as null). */
function days(v: number | string): number | null {
  return v === '' || v === null ? null : Number(v);
}

/** The team's request-log settings (admins): what is recorded, and for how many days. */
export function RequestLogSettings({ teamId }: { teamId: string }) {
  const { t } = useTranslation();
  const qc = useQueryClient();
  const team = useQuery({
    queryKey: ['team', teamId],
    queryFn: async () => unwrap(await api.GET('/api/v1/teams/{team_id}', { params: { path: { team_id: teamId } } })),
  });
  const [level, setLevel] = useState<Level>('metadata');
  const [retention, setRetention] = useState<number | string>('');
  const [bodyRetention, setBodyRetention] = useState<number | string>('');
  useEffect(() => {
    if (!team.data) return;
    setLevel(team.data.request_log_bodies);
    setRetention(team.data.request_log_retention_days ?? '');
    setBodyRetention(team.data.request_log_body_retention_days ?? '');
  }, [team.data]);
  const save = useMutation({
    mutationFn: async () =>
      unwrap(
        await api.PATCH('/api/v1/teams/{team_id}', {
          params: { path: { team_id: teamId } },
          body: {
            request_log_bodies: level,
            request_log_retention_days: days(retention),
            request_log_body_retention_days: days(bodyRetention),
          },
        }),
      ),
    onSuccess: (data) => qc.setQueryData(['team', teamId], data),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  return (
    <Paper withBorder p="md" radius="md">
      <form onSubmit={submit} aria-label={t('requestLog.title')}>
        <Stack gap="xs">
          <Title order={2} size="h5">
            {t('requestLog.title')}
          </Title>
          <Text size="sm" c="dimmed">
            {t('requestLog.hint')}
          </Text>
          {team.isPending ? (
            <LoadingRows rows={2} />
          ) : (
            <Group align="flex-end">
              <Select
                label={t('requestLog.level')}
                w={260}
                allowDeselect={false}
                value={level}
                onChange={(v) => v && setLevel(v as Level)}
                data={LEVELS.map((l) => ({ value: l, label: t(`requestLog.levels.${l}`) }))}
              />
              <NumberInput
                label={t('requestLog.retention')}
                placeholder={t('requestLog.serverDefault')}
                w={200}
                min={1}
                allowDecimal={false}
                value={retention}
                onChange={setRetention}
              />
              <NumberInput
                label={t('requestLog.bodyRetention')}
                placeholder={t('requestLog.serverDefault')}
                w={200}
                min={1}
                allowDecimal={false}
                value={bodyRetention}
                onChange={setBodyRetention}
              />
              <Button type="submit" variant="light" loading={save.isPending}>
                {t('requestLog.save')}
              </Button>
            </Group>
          )}
          {save.isSuccess && (
            <Text size="sm" c="var(--mantine-color-teal-light-color)" role="status">
              {t('requestLog.saved')}
            </Text>
          )}
          <ErrorAlert error={team.error ?? save.error} />
        </Stack>
      </form>
    </Paper>
  );
}
