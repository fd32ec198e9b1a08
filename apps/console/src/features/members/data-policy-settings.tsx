import { useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Group, MultiSelect, Paper, Select, Stack, Text, Textarea, Title } from '@mantine/core';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { ErrorAlert, LoadingRows } from '../../components/common';

type Policy = components['schemas']['DataPolicyDto'];
type Entity = Policy['entities'][number];
const RESIDENCIES: Policy['residency'][] = ['any', 'ru_only'];
const MODES: Policy['pii'][] = ['off', 'mask', 'block'];
const SCOPES: Policy['pii_scope'][] = ['foreign_only', 'all_providers'];
const ENTITIES: Entity[] = [
  'email',
  'phone',
  'card',
  'inn',
  'snils',
  'passport',
  'ogrn',
  'bank_account',
  'ip',
  'person',
  'address',
  'custom',
];

/** Custom patterns as edited: one `name: regex` per line. */
function patternsText(p: Policy['custom_patterns']): string {
  return p.map((x) => `${x.name}: ${x.regex}`).join('\n');
}

function parsePatterns(text: string): Policy['custom_patterns'] {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .map((l) => {
      const at = l.indexOf(':');
      return at < 0 ? { name: l, regex: '' } : { name: l.slice(0, at).trim(), regex: l.slice(at + 1).trim() };
    });
}

const lines = (text: string): string[] =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);

/** The team's data policy (owners and admins): where requests may go, and what personal data may leave. */
export function DataPolicySettings({ teamId }: { teamId: string }) {
  const { t } = useTranslation();
  const qc = useQueryClient();
  const key = ['data-policy', teamId];
  const policy = useQuery({
    queryKey: key,
    queryFn: async () =>
      unwrap(await api.GET('/api/v1/teams/{team_id}/data-policy', { params: { path: { team_id: teamId } } })),
  });
  const [residency, setResidency] = useState<Policy['residency']>('any');
  const [pii, setPii] = useState<Policy['pii']>('off');
  const [scope, setScope] = useState<Policy['pii_scope']>('foreign_only');
  const [entities, setEntities] = useState<Entity[]>(ENTITIES);
  const [patterns, setPatterns] = useState('');
  const [allow, setAllow] = useState('');
  useEffect(() => {
    const p = policy.data;
    if (!p) return;
    setResidency(p.residency);
    setPii(p.pii);
    setScope(p.pii_scope);
    setEntities(p.entities);
    setPatterns(patternsText(p.custom_patterns));
    setAllow(p.allow_list.join('\n'));
  }, [policy.data]);
  const save = useMutation({
    mutationFn: async () =>
      unwrap(
        await api.PUT('/api/v1/teams/{team_id}/data-policy', {
          params: { path: { team_id: teamId } },
          body: {
            residency,
            pii,
            pii_scope: scope,
            entities,
            custom_patterns: parsePatterns(patterns),
            allow_list: lines(allow),
          },
        }),
      ),
    onSuccess: (data) => qc.setQueryData(key, data),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  const detects = pii !== 'off';
  return (
    <Paper withBorder p="md" radius="md">
      <form onSubmit={submit} aria-label={t('dataPolicy.title')}>
        <Stack gap="xs">
          <Title order={2} size="h5">
            {t('dataPolicy.title')}
          </Title>
          <Text size="sm" c="dimmed">
            {t('dataPolicy.hint')}
          </Text>
          {policy.isPending ? (
            <LoadingRows rows={3} />
          ) : (
            <>
              <Group align="flex-end">
                <Select
                  label={t('dataPolicy.residency')}
                  w={300}
                  allowDeselect={false}
                  value={residency}
                  onChange={(v) => v && setResidency(v as Policy['residency'])}
                  data={RESIDENCIES.map((r) => ({ value: r, label: t(`dataPolicy.residencies.${r}`) }))}
                />
                <Select
                  label={t('dataPolicy.pii')}
                  w={300}
                  allowDeselect={false}
                  value={pii}
                  onChange={(v) => v && setPii(v as Policy['pii'])}
                  data={MODES.map((m) => ({ value: m, label: t(`dataPolicy.modes.${m}`) }))}
                />
                <Select
                  label={t('dataPolicy.scope')}
                  w={300}
                  allowDeselect={false}
                  disabled={!detects}
                  value={scope}
                  onChange={(v) => v && setScope(v as Policy['pii_scope'])}
                  data={SCOPES.map((s) => ({ value: s, label: t(`dataPolicy.scopes.${s}`) }))}
                />
              </Group>
              <MultiSelect
                label={t('dataPolicy.entities')}
                disabled={!detects}
                value={entities}
                onChange={(v) => setEntities(v as Entity[])}
                data={ENTITIES.map((e) => ({ value: e, label: t(`dataPolicy.entityNames.${e}`) }))}
              />
              <Group align="flex-start" grow>
                <Textarea
                  label={t('dataPolicy.patterns')}
                  description={t('dataPolicy.patternsHint')}
                  disabled={!detects}
                  autosize
                  minRows={2}
                  value={patterns}
                  onChange={(e) => setPatterns(e.currentTarget.value)}
                />
                <Textarea
                  label={t('dataPolicy.allowList')}
                  description={t('dataPolicy.allowListHint')}
                  disabled={!detects}
                  autosize
                  minRows={2}
                  value={allow}
                  onChange={(e) => setAllow(e.currentTarget.value)}
                />
              </Group>
              <Group>
                <Button type="submit" variant="light" loading={save.isPending}>
                  {t('dataPolicy.save')}
                </Button>
              </Group>
            </>
          )}
          {save.isSuccess && (
            <Text size="sm" c="var(--mantine-color-teal-light-color)" role="status">
              {t('dataPolicy.saved')}
            </Text>
          )}
          <ErrorAlert error={policy.error ?? save.error} />
        </Stack>
      </form>
    </Paper>
  );
}
