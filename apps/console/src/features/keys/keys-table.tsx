import { useState, type FormEvent, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import {
  Alert,
  Badge,
  Button,
  Code,
  Group,
  Modal,
  NumberInput,
  SimpleGrid,
  Stack,
  Table,
  Text,
  TextInput,
} from '@mantine/core';
import type { components } from '../../api/schema';
import {
  ConfirmAction,
  CopyValue,
  EmptyState,
  ErrorAlert,
  FormDialog,
  LoadingRows,
  Snippet,
} from '../../components/common';
import { formatDate, formatRub } from '../../i18n';
import { McpToolsSummary } from './mcp-tools-field';

export type ApiKey = components['schemas']['ApiKeyDto'];
export type CreatedKey = components['schemas']['CreatedApiKeyDto'];

/** The limits an admin may change on a key; null removes a limit. */
export interface KeyLimits {
  rpm_limit: number | null;
  tpm_limit: number | null;
  budget_rub_per_day: number | null;
  budget_rub_per_month: number | null;
}

const num = (v: unknown): number | null => (typeof v === 'number' ? v : null);

function EditLimits({
  apiKey,
  onSave,
}: {
  apiKey: ApiKey;
  onSave: (id: string, limits: KeyLimits) => Promise<unknown>;
}) {
  const { t } = useTranslation();
  const initial: KeyLimits = {
    rpm_limit: num(apiKey.rpm_limit),
    tpm_limit: num(apiKey.tpm_limit),
    budget_rub_per_day: num(apiKey.budget_rub_per_day),
    budget_rub_per_month: num(apiKey.budget_rub_per_month),
  };
  const [v, setV] = useState<KeyLimits>(initial);
  const field = (k: keyof KeyLimits, label: string) => (
    <NumberInput
      label={label}
      min={0}
      value={v[k] ?? ''}
      placeholder={t('keys.noLimit')}
      onChange={(x) => setV((o) => ({ ...o, [k]: typeof x === 'number' ? x : null }))}
    />
  );
  return (
    <FormDialog
      label={t('keys.editLimits')}
      title={t('keys.limitsOf', { prefix: apiKey.prefix })}
      onOpen={() => setV(initial)}
      onSubmit={() => onSave(apiKey.id, v)}
    >
      {({ busy, error }) => (
        <Stack>
          <ErrorAlert error={error} />
          <SimpleGrid cols={2}>
            {field('rpm_limit', t('keys.rpm'))}
            {field('tpm_limit', t('keys.tpm'))}
            {field('budget_rub_per_day', t('keys.budgetDay'))}
            {field('budget_rub_per_month', t('keys.budgetMonth'))}
          </SimpleGrid>
          <Button type="submit" loading={busy}>
            {t('keys.saveLimits')}
          </Button>
        </Stack>
      )}
    </FormDialog>
  );
}

export function curlFor(baseUrl: string, apiKey: string): string {
  return [
    `curl -s ${baseUrl}/v1/chat/completions \\`,
    `  -H "Authorization: Bearer ${apiKey}" -H 'content-type: application/json' \\`,
    `  -d '{"model":"local","messages":[{"role":"user","content":"Hello!"}]}'`,
  ].join('\n');
}

/** The secret of a new key, shown once, with a copy button and a ready request. */
export function NewKeySecret({ created, onClose }: { created: CreatedKey | null; onClose: () => void }) {
  const { t } = useTranslation();
  return (
    <Modal opened={!!created} onClose={onClose} title={t('keys.createdTitle')} size="lg">
      {created && (
        <Stack>
          <Alert color="yellow">{t('keys.shownOnce')}</Alert>
          <Group wrap="nowrap">
            <Code fz="sm" style={{ wordBreak: 'break-all' }} aria-label={t('keys.secret')} data-testid="new-key">
              {created.api_key}
            </Code>
            <CopyValue value={created.api_key} label={t('keys.copySecret')} />
          </Group>
          <Snippet label={t('keys.tryIt')} code={curlFor(window.location.origin, created.api_key)} />
          <Button onClick={onClose}>{t('keys.done')}</Button>
        </Stack>
      )}
    </Modal>
  );
}

export function CreateKeyForm({
  onCreate,
  busy,
  error,
}: {
  onCreate: (name: string) => void;
  busy: boolean;
  error: unknown;
}) {
  const { t } = useTranslation();
  const [name, setName] = useState('');
  return (
    <form
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        onCreate(name.trim());
        setName('');
      }}
    >
      <Group align="flex-end">
        <TextInput
          label={t('keys.name')}
          value={name}
          maxLength={200}
          onChange={(e) => setName(e.currentTarget.value)}
        />
        <Button type="submit" loading={busy}>
          {t('keys.create')}
        </Button>
      </Group>
      <ErrorAlert error={error} />
    </form>
  );
}

export function KeysTable({
  keys,
  loading,
  canManage,
  onRevoke,
  onSaveLimits,
  creatorName,
  extraActions,
}: {
  keys: ApiKey[];
  loading: boolean;
  canManage: boolean;
  onRevoke: (id: string) => Promise<unknown>;
  onSaveLimits?: (id: string, limits: KeyLimits) => Promise<unknown>;
  /** shows a "created by" column */
  creatorName?: (userId: string | null) => string;
  /** more controls per live key (rotation) */
  extraActions?: (key: ApiKey) => ReactNode;
}) {
  const { t, i18n } = useTranslation();
  const lang = i18n.language;
  if (loading) return <LoadingRows />;
  if (keys.length === 0)
    return <EmptyState title={t('keys.empty')} hint={canManage ? t('keys.emptyHint') : t('keys.emptyViewer')} />;
  const limit = (v: unknown) => (v === null || v === undefined ? '—' : String(v));
  return (
    <Table.ScrollContainer minWidth={1040}>
      <Table striped aria-label={t('keys.title')}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t('keys.name')}</Table.Th>
            <Table.Th>{t('keys.prefix')}</Table.Th>
            {creatorName && <Table.Th>{t('teamAdmin.createdBy')}</Table.Th>}
            <Table.Th>{t('keys.lastUsed')}</Table.Th>
            <Table.Th>{t('keys.limits')}</Table.Th>
            <Table.Th>{t('keys.budgets')}</Table.Th>
            <Table.Th>{t('keys.spend')}</Table.Th>
            <Table.Th>{t('keys.expires')}</Table.Th>
            <Table.Th>{t('keys.models')}</Table.Th>
            <Table.Th>{t('mcp.keys.column')}</Table.Th>
            <Table.Th>{t('common.actions')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {keys.map((k) => (
            <Table.Tr key={k.id}>
              <Table.Td>{(k.name as string | null) ?? '—'}</Table.Td>
              <Table.Td>
                <Code>{k.prefix}…</Code>
              </Table.Td>
              {creatorName && <Table.Td>{creatorName(k.created_by as string | null)}</Table.Td>}
              <Table.Td>{formatDate(k.last_used_at as string | null, lang)}</Table.Td>
              <Table.Td>
                <Text size="xs">
                  {limit(k.rpm_limit)} RPM · {limit(k.tpm_limit)} TPM
                </Text>
              </Table.Td>
              <Table.Td>
                <Text size="xs">
                  {t('keys.perDay')}:{' '}
                  {k.budget_rub_per_day == null ? '—' : formatRub(k.budget_rub_per_day as unknown as number, lang)} ·{' '}
                  {t('keys.perMonth')}:{' '}
                  {k.budget_rub_per_month == null ? '—' : formatRub(k.budget_rub_per_month as unknown as number, lang)}
                </Text>
              </Table.Td>
              <Table.Td>
                <Text size="xs">
                  {formatRub(k.spent_rub_today, lang)} / {formatRub(k.spent_rub_this_month, lang)}
                </Text>
              </Table.Td>
              <Table.Td>{formatDate(k.expires_at as unknown as string | null, lang)}</Table.Td>
              <Table.Td>
                <Text size="xs">
                  {(k.allowed_models ?? []).length ? (k.allowed_models ?? []).join(', ') : t('keys.allModels')}
                </Text>
              </Table.Td>
              <Table.Td data-testid={`mcp-tools-${k.prefix}`}>
                <McpToolsSummary tools={k.allowed_mcp_tools ?? []} />
              </Table.Td>
              <Table.Td>
                {k.revoked ? (
                  <Badge color="gray">{t('keys.revoked')}</Badge>
                ) : (
                  canManage && (
                    <Group gap={6} wrap="nowrap">
                      {onSaveLimits && <EditLimits apiKey={k} onSave={onSaveLimits} />}
                      {extraActions?.(k)}
                      <ConfirmAction
                        label={t('keys.revoke')}
                        title={t('keys.revokeTitle')}
                        body={t('keys.revokeBody', { prefix: k.prefix })}
                        onConfirm={() => onRevoke(k.id).then(() => undefined)}
                      />
                    </Group>
                  )
                )}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
