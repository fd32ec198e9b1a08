import { useTranslation } from 'react-i18next';
import { Badge, Group, Stack, Table, Tooltip } from '@mantine/core';
import { ErrorAlert, LoadingRows, PageHeader } from '../../components/common';
import { formatNumber } from '../../i18n';
import { useModels, type CatalogModel } from '../projects/project-queries';
import { CapabilityBadges, RubPrices } from './model-prices';

export function ModelsPage() {
  const { t, i18n } = useTranslation();
  const lang = i18n.language;
  const models = useModels();
  const list = (models.data?.data ?? []) as CatalogModel[];
  return (
    <Stack>
      <PageHeader title={t('models.title')} description={t('models.subtitle')} />
      <ErrorAlert error={models.error} />
      {models.isPending ? (
        <LoadingRows rows={8} />
      ) : (
        <Table.ScrollContainer minWidth={640}>
          <Table striped aria-label={t('models.title')}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('models.model')}</Table.Th>
                <Table.Th>{t('models.provider')}</Table.Th>
                <Table.Th>{t('models.jurisdiction')}</Table.Th>
                <Table.Th>{t('catalog.prices')}</Table.Th>
                <Table.Th>{t('models.context')}</Table.Th>
                <Table.Th>{t('models.capabilities')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {list.map((m) => (
                <Table.Tr key={m.key} opacity={m.available ? 1 : 0.55}>
                  <Table.Td>{m.key}</Table.Td>
                  <Table.Td>{m.provider}</Table.Td>
                  <Table.Td>
                    <Badge size="xs" variant="light" color={m.jurisdiction === 'ru' ? 'teal' : 'gray'}>
                      {t(`models.jurisdiction_${m.jurisdiction}`)}
                    </Badge>
                  </Table.Td>
                  <Table.Td>
                    <RubPrices kind={m.kind} prices={m.pricing} perImage={m.image?.per_image_rub} />
                  </Table.Td>
                  <Table.Td>{formatNumber(m.context_window, lang)}</Table.Td>
                  <Table.Td>
                    <Group gap={4}>
                      <CapabilityBadges
                        kind={m.kind}
                        supportsImages={m.supports_images}
                        supportsTools={m.supports_tools}
                      />
                      {!m.available && (
                        <Tooltip label={m.unavailable_reason ?? ''} disabled={!m.unavailable_reason} multiline w={320}>
                          <Badge size="xs" color="gray">
                            {t('models.unavailable')}
                          </Badge>
                        </Tooltip>
                      )}
                    </Group>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </Stack>
  );
}
