import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Button, Group, NumberInput, Stack, Text, TextInput } from '@mantine/core';
import { api, unwrap } from '../../api/client';
import { ErrorAlert } from '../../components/common';
import { DeleteTeam } from '../members/delete-team';
import { RequestLogSettings } from '../members/request-log-settings';

interface TeamFacts {
  id: string;
  name: string;
  rpm_limit: number | null;
  tpm_limit: number | null;
}

const limit = (v: number | string) => (v === '' ? null : Number(v));

/** Name and rate limits of a team, its request-log settings, and deleting it. */
export function TeamSettings({ team, onDeleted }: { team: TeamFacts; onDeleted: () => void }) {
  const { t } = useTranslation();
  const qc = useQueryClient();
  const [name, setName] = useState(team.name);
  const [rpm, setRpm] = useState<number | string>(team.rpm_limit ?? '');
  const [tpm, setTpm] = useState<number | string>(team.tpm_limit ?? '');
  const save = useMutation({
    mutationFn: async () =>
      unwrap(
        await api.PATCH('/api/v1/admin/teams/{id}', {
          params: { path: { id: team.id } },
          body: { name: name.trim(), rpm_limit: limit(rpm), tpm_limit: limit(tpm) },
        }),
      ),
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: ['admin-team', team.id] });
      void qc.invalidateQueries({ queryKey: ['admin-teams'] });
    },
  });
  return (
    <Stack>
      <form
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          save.mutate();
        }}
      >
        <Group align="flex-end">
          <TextInput
            label={t('operator.rename')}
            required
            value={name}
            onChange={(e) => setName(e.currentTarget.value)}
          />
          <NumberInput label={t('operator.rpmLimit')} min={1} value={rpm} onChange={setRpm} w={240} />
          <NumberInput label={t('operator.tpmLimit')} min={1} value={tpm} onChange={setTpm} w={240} />
          <Button type="submit" loading={save.isPending} disabled={!name.trim()}>
            {t('operator.save')}
          </Button>
          {save.isSuccess && <Text size="sm">{t('operator.saved')}</Text>}
        </Group>
        <ErrorAlert error={save.error} />
      </form>
      <RequestLogSettings teamId={team.id} />
      <DeleteTeam teamId={team.id} teamName={team.name} onDeleted={onDeleted} />
    </Stack>
  );
}
