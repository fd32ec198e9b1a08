import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Stack } from '@mantine/core';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { useAuth, usePermissions } from '../../auth/auth-context';
import { ErrorAlert, PageHeader } from '../../components/common';
import { KeysTable, NewKeySecret, type ApiKey, type CreatedKey, type KeyLimits } from './keys-table';
import { KeyForm, RotateKey, RotationNote, useMemberNames } from './key-admin';
import { EditMcpTools } from './mcp-tools-field';
import { useMcpToolPatterns } from '../mcp/mcp-queries';

export function KeysPage() {
  const { t } = useTranslation();
  const auth = useAuth();
  const can = usePermissions();
  const qc = useQueryClient();
  const [created, setCreated] = useState<CreatedKey | null>(null);
  const [rotated, setRotated] = useState<components['schemas']['RotatedApiKeyDto'] | null>(null);
  const team_id = auth.teamId ?? '';
  const session = auth.mode === 'session';
  const keys = useQuery({
    queryKey: ['keys', team_id],
    queryFn: async () => unwrap(await api.GET('/api/v1/teams/{team_id}/api-keys', { params: { path: { team_id } } })),
    enabled: session && !!team_id,
  });
  const creatorName = useMemberNames(team_id, session && can.canManageMembers);
  const mcpSuggestions = useMcpToolPatterns(team_id, session && can.canManageKeys);
  const revoke = useMutation({
    mutationFn: async (key_id: string) =>
      unwrap(await api.DELETE('/api/v1/teams/{team_id}/api-keys/{key_id}', { params: { path: { team_id, key_id } } })),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['keys'] }),
  });
  const saveLimits = async (key_id: string, limits: KeyLimits) => {
    const body = limits as unknown as components['schemas']['UpdateApiKeyDto'];
    unwrap(
      await api.PATCH('/api/v1/teams/{team_id}/api-keys/{key_id}', { params: { path: { team_id, key_id } }, body }),
    );
    await qc.invalidateQueries({ queryKey: ['keys'] });
  };
  const saveMcpTools = async (key_id: string, tools: string[]) => {
    unwrap(
      await api.PATCH('/api/v1/teams/{team_id}/api-keys/{key_id}', {
        params: { path: { team_id, key_id } },
        body: { allowed_mcp_tools: tools },
      }),
    );
    await qc.invalidateQueries({ queryKey: ['keys'] });
  };
  return (
    <Stack>
      <PageHeader title={t('keys.title')} description={t('keys.subtitle')} />
      {!session ? (
        <Alert color="blue">{t('keys.keyMode')}</Alert>
      ) : (
        <>
          {can.canManageKeys && (
            <KeyForm
              teamId={team_id}
              canSetLimits={can.canManageMembers}
              mcpSuggestions={mcpSuggestions}
              onCreated={(k) => {
                setRotated(null);
                setCreated(k);
                void qc.invalidateQueries({ queryKey: ['keys'] });
              }}
            />
          )}
          <RotationNote rotated={rotated} />
          <ErrorAlert error={keys.error ?? revoke.error} />
          <KeysTable
            keys={(keys.data?.data ?? []) as ApiKey[]}
            loading={keys.isPending}
            canManage={can.canManageKeys}
            onRevoke={(id) => revoke.mutateAsync(id)}
            onSaveLimits={can.canManageMembers ? saveLimits : undefined}
            creatorName={creatorName}
            extraActions={
              can.canManageMembers
                ? (k) => (
                    <>
                      <EditMcpTools apiKey={k} suggestions={mcpSuggestions} onSave={saveMcpTools} />
                      <RotateKey
                        teamId={team_id}
                        apiKey={k}
                        onRotated={(r) => {
                          setRotated(r);
                          setCreated(r);
                          void qc.invalidateQueries({ queryKey: ['keys'] });
                        }}
                      />
                    </>
                  )
                : undefined
            }
          />
        </>
      )}
      <NewKeySecret created={created} onClose={() => setCreated(null)} />
    </Stack>
  );
}
