import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Alert, Badge, Button, Code, Group, Modal, Stack, Table, Text, TextInput } from '@mantine/core';
import type { components } from '../../api/schema';
import { ConfirmAction, CopyValue, EmptyState, ErrorAlert, LoadingRows, Snippet } from '../../components/common';
import { formatDate, formatRub } from '../../i18n';

export type ApiKey = components['schemas']['ApiKeyDto'];
export type CreatedKey = components['schemas']['CreatedApiKeyDto'];

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
}: {
  keys: ApiKey[];
  loading: boolean;
  canManage: boolean;
  onRevoke: (id: string) => Promise<unknown>;
}) {
  const { t, i18n } = useTranslation();
  const lang = i18n.language;
  if (loading) return <LoadingRows />;
  if (keys.length === 0)
    return <EmptyState title={t('keys.empty')} hint={canManage ? t('keys.emptyHint') : t('keys.emptyViewer')} />;
  const limit = (v: unknown) => (v === null || v === undefined ? '—' : String(v));
  return (
    <Table striped aria-label={t('keys.title')}>
      <Table.Thead>
        <Table.Tr>
          <Table.Th>{t('keys.name')}</Table.Th>
          <Table.Th>{t('keys.prefix')}</Table.Th>
          <Table.Th>{t('keys.lastUsed')}</Table.Th>
          <Table.Th>{t('keys.limits')}</Table.Th>
          <Table.Th>{t('keys.budgets')}</Table.Th>
          <Table.Th>{t('keys.spend')}</Table.Th>
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
            <Table.Td>
              {k.revoked ? (
                <Badge color="gray">{t('keys.revoked')}</Badge>
              ) : (
                canManage && (
                  <ConfirmAction
                    label={t('keys.revoke')}
                    title={t('keys.revokeTitle')}
                    body={t('keys.revokeBody', { prefix: k.prefix })}
                    onConfirm={() => onRevoke(k.id).then(() => undefined)}
                  />
                )
              )}
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
