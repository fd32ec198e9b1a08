import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation, useQuery } from '@tanstack/react-query';
import {
  Alert,
  Button,
  Group,
  Modal,
  MultiSelect,
  NumberInput,
  Paper,
  Select,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { ErrorAlert } from '../../components/common';
import { formatDate } from '../../i18n';
import { useModels } from '../projects/project-queries';
import type { ApiKey, CreatedKey, KeyLimits } from './keys-table';
import { McpToolsField, mcpToolsValid } from './mcp-tools-field';

type Rotated = components['schemas']['RotatedApiKeyDto'];
const GRACES = ['0', '300', '3600', '86400', '604800'] as const;

/** Names (or e-mails) of the team's members by user id, for "created by". */
export function useMemberNames(teamId: string, enabled: boolean): (id: string | null | undefined) => string {
  const { t } = useTranslation();
  const members = useQuery({
    queryKey: ['members', teamId],
    queryFn: async () =>
      unwrap(await api.GET('/api/v1/teams/{team_id}/members', { params: { path: { team_id: teamId } } })),
    enabled: enabled && !!teamId,
  });
  const byId = new Map((members.data?.data ?? []).map((m) => [m.user_id, (m.name as string | null) || m.email]));
  return (id) => (id ? (byId.get(id) ?? id.slice(0, 8)) : t('teamAdmin.operatorToken'));
}

const toNumber = (v: number | string): number | null => (typeof v === 'number' ? v : null);

/**
 * A new key with everything the key API takes: name, allowed models (from the catalog), expiry, and
 * for owners/admins the rate limits and RUB budgets (set right after creation).
 */
export function KeyForm({
  teamId,
  canSetLimits,
  onCreated,
  mcpSuggestions = [],
}: {
  teamId: string;
  canSetLimits: boolean;
  onCreated: (k: CreatedKey) => void;
  /** `server/*` and `server/tool` of the team's registered MCP servers */
  mcpSuggestions?: string[];
}) {
  const { t } = useTranslation();
  const models = useModels();
  const [name, setName] = useState('');
  const [allowed, setAllowed] = useState<string[]>([]);
  const [mcpTools, setMcpTools] = useState<string[]>([]);
  const [expires, setExpires] = useState('');
  const [limits, setLimits] = useState<Record<keyof KeyLimits, number | string>>({
    rpm_limit: '',
    tpm_limit: '',
    budget_rub_per_day: '',
    budget_rub_per_month: '',
  });
  const create = useMutation({
    mutationFn: async () => {
      const created = unwrap(
        await api.POST('/api/v1/teams/{team_id}/api-keys', {
          params: { path: { team_id: teamId } },
          body: {
            ...(name.trim() ? { name: name.trim() } : {}),
            ...(allowed.length ? { allowed_models: allowed } : {}),
            ...(mcpTools.length ? { allowed_mcp_tools: mcpTools } : {}),
            ...(expires ? { expires_at: new Date(expires).toISOString() } : {}),
          },
        }),
      );
      const set = Object.fromEntries(
        Object.entries(limits)
          .map(([k, v]) => [k, toNumber(v)])
          .filter(([, v]) => v !== null),
      );
      if (canSetLimits && Object.keys(set).length > 0)
        unwrap(
          await api.PATCH('/api/v1/teams/{team_id}/api-keys/{key_id}', {
            params: { path: { team_id: teamId, key_id: created.id } },
            body: set as components['schemas']['UpdateApiKeyDto'],
          }),
        );
      return created;
    },
    onSuccess: (k) => {
      setName('');
      setAllowed([]);
      setMcpTools([]);
      setExpires('');
      setLimits({ rpm_limit: '', tpm_limit: '', budget_rub_per_day: '', budget_rub_per_month: '' });
      onCreated(k);
    },
  });
  const limitField = (k: keyof KeyLimits, label: string) => (
    <NumberInput
      label={label}
      min={0}
      value={limits[k]}
      placeholder={t('keys.noLimit')}
      onChange={(v) => setLimits((o) => ({ ...o, [k]: v }))}
    />
  );
  const catalog = [
    ...new Set((models.data?.data ?? []).map((m) => m.key).filter((k): k is string => typeof k === 'string')),
  ].sort();
  return (
    <Paper withBorder p="md" data-testid="key-form">
      <form
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          create.mutate();
        }}
      >
        <Stack gap="sm">
          <Title order={2} size="h4">
            {t('teamAdmin.keyForm.title')}
          </Title>
          <SimpleGrid cols={{ base: 1, sm: 3 }}>
            <TextInput
              label={t('keys.name')}
              value={name}
              maxLength={200}
              onChange={(e) => setName(e.currentTarget.value)}
            />
            <MultiSelect
              label={t('teamAdmin.keyForm.models')}
              placeholder={allowed.length ? undefined : t('teamAdmin.keyForm.modelsHint')}
              data={catalog}
              value={allowed}
              onChange={setAllowed}
              searchable
              clearable
            />
            <TextInput
              type="datetime-local"
              label={t('teamAdmin.keyForm.expires')}
              description={t('teamAdmin.keyForm.expiresHint')}
              value={expires}
              onChange={(e) => setExpires(e.currentTarget.value)}
            />
          </SimpleGrid>
          <McpToolsField value={mcpTools} onChange={setMcpTools} suggestions={mcpSuggestions} />
          {canSetLimits ? (
            <SimpleGrid cols={{ base: 2, sm: 4 }}>
              {limitField('budget_rub_per_day', t('keys.budgetDay'))}
              {limitField('budget_rub_per_month', t('keys.budgetMonth'))}
              {limitField('rpm_limit', t('keys.rpm'))}
              {limitField('tpm_limit', t('keys.tpm'))}
            </SimpleGrid>
          ) : (
            <Text size="xs" c="dimmed">
              {t('teamAdmin.keyForm.limitsHint')}
            </Text>
          )}
          <Group>
            <Button type="submit" loading={create.isPending} disabled={!mcpToolsValid(mcpTools)}>
              {t('keys.create')}
            </Button>
          </Group>
          <ErrorAlert error={create.error} />
        </Stack>
      </form>
    </Paper>
  );
}

/** Rotation: a new secret (shown once by the caller) while the old one lives on for a chosen grace period. */
export function RotateKey({
  teamId,
  apiKey,
  onRotated,
}: {
  teamId: string;
  apiKey: ApiKey;
  onRotated: (k: Rotated) => void;
}) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const [grace, setGrace] = useState<string>('3600');
  const rotate = useMutation({
    mutationFn: async () =>
      unwrap(
        await api.POST('/api/v1/teams/{team_id}/api-keys/{key_id}/rotate', {
          params: { path: { team_id: teamId, key_id: apiKey.id } },
          body: { grace_seconds: Number(grace) },
        }),
      ),
    onSuccess: (k) => {
      setOpen(false);
      onRotated(k);
    },
  });
  return (
    <>
      <Button
        size="xs"
        variant="light"
        onClick={() => setOpen(true)}
        aria-label={t('teamAdmin.rotate.actionOf', { prefix: apiKey.prefix })}
      >
        {t('teamAdmin.rotate.action')}
      </Button>
      <Modal
        opened={open}
        onClose={() => setOpen(false)}
        title={t('teamAdmin.rotate.title', { prefix: apiKey.prefix })}
        closeButtonProps={{ 'aria-label': t('common.cancel') }}
      >
        <form
          onSubmit={(e: FormEvent) => {
            e.preventDefault();
            rotate.mutate();
          }}
        >
          <Stack>
            <Text size="sm">{t('teamAdmin.rotate.body')}</Text>
            <Select
              label={t('teamAdmin.rotate.grace')}
              data={GRACES.map((g) => ({ value: g, label: t(`teamAdmin.rotate.graces.${g}`) }))}
              value={grace}
              onChange={(v) => setGrace(v ?? '3600')}
              allowDeselect={false}
            />
            <ErrorAlert error={rotate.error} />
            <Group justify="flex-end">
              <Button variant="default" onClick={() => setOpen(false)}>
                {t('common.cancel')}
              </Button>
              <Button type="submit" loading={rotate.isPending}>
                {t('teamAdmin.rotate.submit')}
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
    </>
  );
}

/** What became of the old secret after a rotation. */
export function RotationNote({ rotated }: { rotated: Rotated | null }) {
  const { t, i18n } = useTranslation();
  if (!rotated) return null;
  return (
    <Alert color="blue" data-testid="rotation-note">
      {rotated.previous_expires_at
        ? t('teamAdmin.rotate.oldUntil', { date: formatDate(rotated.previous_expires_at, i18n.language) })
        : t('teamAdmin.rotate.oldRevoked')}
    </Alert>
  );
}
