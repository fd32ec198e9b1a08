import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Stack } from '@mantine/core';
import { accountsFetch as teamFetch } from '../../api/accounts-fetch';
import { useAuth, usePermissions } from '../../auth/auth-context';
import { ErrorAlert, PageHeader } from '../../components/common';
import { CreateKeyForm, KeysTable, NewKeySecret, type ApiKey, type CreatedKey } from './keys-table';

export function KeysPage() {
  const { t } = useTranslation();
  const auth = useAuth();
  const can = usePermissions();
  const qc = useQueryClient();
  const [created, setCreated] = useState<CreatedKey | null>(null);
  const base = `/api/v1/teams/${auth.teamId}/api-keys`;
  const session = auth.mode === 'session';
  const keys = useQuery({
    queryKey: ['keys', auth.teamId],
    queryFn: () => teamFetch<{ data: ApiKey[] }>('GET', base),
    enabled: session && !!auth.teamId,
  });
  const create = useMutation({
    mutationFn: (name: string) => teamFetch<CreatedKey>('POST', base, name ? { name } : {}),
    onSuccess: (k) => {
      setCreated(k);
      void qc.invalidateQueries({ queryKey: ['keys'] });
    },
  });
  const revoke = useMutation({
    mutationFn: (id: string) => teamFetch<void>('DELETE', `${base}/${id}`),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['keys'] }),
  });
  return (
    <Stack>
      <PageHeader title={t('keys.title')} description={t('keys.subtitle')} />
      {!session ? (
        <Alert color="blue">{t('keys.keyMode')}</Alert>
      ) : (
        <>
          {can.canManageKeys && (
            <CreateKeyForm onCreate={(n) => create.mutate(n)} busy={create.isPending} error={create.error} />
          )}
          <ErrorAlert error={keys.error ?? revoke.error} />
          <KeysTable
            keys={keys.data?.data ?? []}
            loading={keys.isPending}
            canManage={can.canManageKeys}
            onRevoke={(id) => revoke.mutateAsync(id)}
          />
        </>
      )}
      <NewKeySecret created={created} onClose={() => setCreated(null)} />
    </Stack>
  );
}
