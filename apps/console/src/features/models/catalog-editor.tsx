import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Badge, Button, Group, Modal, Select, Stack, Switch, Table, Text, TextInput, Title } from '@mantine/core';
import { api, unwrap } from '../../api/client';
import { ErrorAlert, LoadingRows } from '../../components/common';
import { formatNumber } from '../../i18n';
import { CatalogEditDrawer } from './catalog-edit-drawer';
import { bodyOf, formOf, type AdminModel } from './catalog-form';
import { CapabilityBadges, priceLines, RubPrices } from './model-prices';

const QUERY_KEY = ['admin-models'];

/** The USD list prices and the rate they are charged at, under a USD model's RUB prices. */
function UsdSource({ m }: { m: AdminModel }) {
  const { t, i18n } = useTranslation();
  if (m.currency !== 'USD') return null;
  if (!m.fx)
    return (
      <Text size="xs" c="dimmed">
        {t('catalog.price.noRate')}
      </Text>
    );
  const usd = (v: number) =>
    new Intl.NumberFormat(i18n.language === 'ru' ? 'ru-RU' : 'en-US', {
      style: 'currency',
      currency: 'USD',
      maximumFractionDigits: 6,
    }).format(v);
  return (
    <Text size="xs" c="dimmed">
      {t('catalog.price.usd', {
        prices: priceLines(m.kind, m.prices, m.image?.per_image, usd, (k, v) => t(k, v)).join('; '),
        rate: formatNumber(m.fx.rate, i18n.language),
        date: m.fx.date,
        markup: formatNumber(m.fx.markup_percent, i18n.language),
      })}
    </Text>
  );
}

/**
 * Operator → Models and prices: the effective catalog with search and filters, each model's prices
 * by its kind (in RUB; USD entries with their list price and rate), an enable switch, the edit
 * drawer and the reset of an override.
 */
export function CatalogEditor() {
  const { t } = useTranslation();
  const qc = useQueryClient();
  const [q, setQ] = useState('');
  const [provider, setProvider] = useState<string | null>(null);
  const [kind, setKind] = useState<string | null>(null);
  const [source, setSource] = useState<string | null>(null);
  const [state, setState] = useState<string | null>(null);
  const [editing, setEditing] = useState<string | null>(null);
  const [resetting, setResetting] = useState<AdminModel | null>(null);
  const models = useQuery({
    queryKey: QUERY_KEY,
    queryFn: async () => unwrap(await api.GET('/api/v1/admin/models')),
  });
  const all = (models.data?.data ?? []) as AdminModel[];
  const refresh = () => qc.invalidateQueries({ queryKey: QUERY_KEY });
  const toggle = useMutation({
    mutationFn: async (m: AdminModel) =>
      unwrap(
        await api.PUT('/api/v1/admin/models/{model}', {
          params: { path: { model: m.key } },
          body: bodyOf(m, { ...formOf(m), enabled: !m.enabled }),
        }),
      ),
    onSettled: refresh,
  });
  const reset = useMutation({
    mutationFn: async (m: AdminModel) =>
      unwrap(await api.DELETE('/api/v1/admin/models/{model}', { params: { path: { model: m.key } } })),
    onSuccess: () => setResetting(null),
    onSettled: refresh,
  });

  const providers = useMemo(() => [...new Set(all.map((m) => m.provider))].sort(), [all]);
  const needle = q.trim().toLowerCase();
  const shown = all.filter(
    (m) =>
      (!needle || [m.key, m.provider, ...m.aliases].some((s) => s.toLowerCase().includes(needle))) &&
      (!provider || m.provider === provider) &&
      (!kind || m.kind === kind) &&
      (!source || m.source === source) &&
      (!state || String(m.enabled) === state),
  );
  const editModel = all.find((m) => m.key === editing) ?? null;
  const opt = (value: string, label: string) => ({ value, label });

  return (
    <Stack>
      <Stack gap={4}>
        <Title order={2} size="h4">
          {t('catalog.title')}
        </Title>
        <Text size="sm" c="dimmed">
          {t('catalog.hint')}
        </Text>
      </Stack>
      <Group align="flex-end" gap="sm">
        <TextInput
          label={t('catalog.search')}
          placeholder={t('catalog.searchPlaceholder')}
          value={q}
          onChange={(e) => setQ(e.currentTarget.value)}
          w={{ base: '100%', xs: 240 }}
        />
        <Select
          label={t('catalog.provider')}
          placeholder={t('catalog.all')}
          data={providers}
          value={provider}
          onChange={setProvider}
          clearable
          w={{ base: '47%', xs: 150 }}
        />
        <Select
          label={t('catalog.kind')}
          placeholder={t('catalog.all')}
          data={['chat', 'embedding', 'image'].map((k) => opt(k, t(`catalog.kinds.${k}`)))}
          value={kind}
          onChange={setKind}
          clearable
          w={{ base: '47%', xs: 190 }}
        />
        <Select
          label={t('catalog.source')}
          placeholder={t('catalog.all')}
          data={['builtin', 'file', 'database'].map((s) => opt(s, t(`catalog.sources.${s}`)))}
          value={source}
          onChange={setSource}
          clearable
          w={{ base: '47%', xs: 150 }}
        />
        <Select
          label={t('catalog.state')}
          placeholder={t('catalog.all')}
          data={[opt('true', t('catalog.enabledOnly')), opt('false', t('catalog.disabledOnly'))]}
          value={state}
          onChange={setState}
          clearable
          w={{ base: '47%', xs: 150 }}
        />
      </Group>
      <ErrorAlert error={models.error ?? toggle.error ?? reset.error} />
      {models.isPending ? (
        <LoadingRows rows={8} />
      ) : (
        <>
          <Text size="sm" c="dimmed" aria-live="polite">
            {t('catalog.count', { shown: shown.length, total: all.length })}
          </Text>
          {shown.length === 0 ? (
            <Text>{t('catalog.none')}</Text>
          ) : (
            <Table.ScrollContainer minWidth={760}>
              <Table striped aria-label={t('catalog.title')} verticalSpacing="xs">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>{t('catalog.model')}</Table.Th>
                    <Table.Th>{t('catalog.prices')}</Table.Th>
                    <Table.Th>{t('catalog.capabilities')}</Table.Th>
                    <Table.Th>{t('catalog.enabled')}</Table.Th>
                    <Table.Th>{t('catalog.actions')}</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {shown.map((m) => (
                    <Table.Tr key={m.key} data-model={m.key}>
                      <Table.Td>
                        <Stack gap={2}>
                          <Text size="sm" fw={600}>
                            {m.key}
                          </Text>
                          <Group gap={4}>
                            <Text size="xs" c="dimmed">
                              {m.provider}
                            </Text>
                            <Badge size="xs" variant="light" color={m.source === 'database' ? 'grape' : 'gray'}>
                              {t(`catalog.sources.${m.source}`)}
                            </Badge>
                            {!m.enabled && (
                              <Badge size="xs" color="red" variant="light">
                                {t('catalog.disabledBadge')}
                              </Badge>
                            )}
                            {!m.available && (
                              <Badge size="xs" color="gray" variant="outline">
                                {t('catalog.unavailable')}
                              </Badge>
                            )}
                          </Group>
                          {m.aliases.length > 0 && (
                            <Text size="xs" c="dimmed">
                              {t('catalog.aliasesOf', { aliases: m.aliases.join(', ') })}
                            </Text>
                          )}
                        </Stack>
                      </Table.Td>
                      <Table.Td>
                        <RubPrices kind={m.kind} prices={m.rub_prices} perImage={m.rub_image?.per_image} />
                        <UsdSource m={m} />
                      </Table.Td>
                      <Table.Td>
                        <CapabilityBadges
                          kind={m.kind}
                          supportsImages={m.supports_images}
                          supportsTools={m.supports_tools}
                        />
                        <Text size="xs" c="dimmed" mt={2}>
                          {formatNumber(m.context_window)}
                        </Text>
                      </Table.Td>
                      <Table.Td>
                        <Switch
                          checked={m.enabled}
                          disabled={toggle.isPending}
                          onChange={() => toggle.mutate(m)}
                          aria-label={t('catalog.toggleOf', { model: m.key })}
                        />
                      </Table.Td>
                      <Table.Td>
                        <Group gap={4} wrap="nowrap">
                          <Button
                            size="xs"
                            variant="light"
                            onClick={() => setEditing(m.key)}
                            aria-label={t('catalog.editOf', { model: m.key })}
                          >
                            {t('catalog.edit')}
                          </Button>
                          {m.source === 'database' && (
                            <Button
                              size="xs"
                              variant="subtle"
                              color="red"
                              onClick={() => setResetting(m)}
                              aria-label={t('catalog.resetOf', { model: m.key })}
                            >
                              {t('catalog.reset')}
                            </Button>
                          )}
                        </Group>
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          )}
        </>
      )}
      {editModel && (
        <CatalogEditDrawer
          key={editModel.key}
          model={editModel}
          models={all}
          onClose={() => setEditing(null)}
          onSaved={() => {
            setEditing(null);
            void refresh();
          }}
        />
      )}
      <Modal
        opened={resetting !== null}
        onClose={() => setResetting(null)}
        title={t('catalog.resetTitle', { model: resetting?.key ?? '' })}
      >
        <Stack>
          <Text size="sm">{t('catalog.resetBody')}</Text>
          <ErrorAlert error={reset.error} />
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setResetting(null)}>
              {t('catalog.cancel')}
            </Button>
            <Button color="red" loading={reset.isPending} onClick={() => resetting && reset.mutate(resetting)}>
              {t('catalog.resetConfirm')}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Stack>
  );
}
