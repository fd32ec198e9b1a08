import { useEffect, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation } from '@tanstack/react-query';
import {
  ActionIcon,
  Alert,
  Badge,
  Button,
  Drawer,
  Fieldset,
  Group,
  MultiSelect,
  Radio,
  SimpleGrid,
  Stack,
  Switch,
  Table,
  TagsInput,
  Text,
  TextInput,
} from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { api, ApiRequestError, unwrap } from '../../api/client';
import { ErrorAlert } from '../../components/common';
import {
  bodyOf,
  formOf,
  pricesOf,
  validate,
  type AdminModel,
  type CatalogForm,
  type FieldErrors,
  type PriceName,
} from './catalog-form';

const PRICE_LABEL: Record<PriceName, string> = {
  input_per_1m: 'input',
  output_per_1m: 'output',
  cache_read_per_1m: 'cacheRead',
  cache_write_per_1m: 'cacheWrite',
  cache_write_1h_per_1m: 'cacheWrite1h',
  image: 'inputImage',
  request: 'request',
};

/** The edit drawer of one catalog model: every editable field, checked as the server checks it. */
export function CatalogEditDrawer({
  model,
  models,
  onClose,
  onSaved,
}: {
  model: AdminModel;
  models: AdminModel[];
  onClose: () => void;
  onSaved: (m: AdminModel) => void;
}) {
  const { t, i18n } = useTranslation();
  const narrow = useMediaQuery('(max-width: 48em)');
  const [form, setForm] = useState<CatalogForm>(() => formOf(model));
  const [errors, setErrors] = useState<FieldErrors>({});
  const set = (patch: Partial<CatalogForm>) => setForm((f) => ({ ...f, ...patch }));
  const formRef = useRef<HTMLFormElement>(null);
  // a refused form brings its first marked field into view
  useEffect(() => {
    formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }, [errors]);
  const over = (field: string) => model.overridden_fields.includes(field);

  const save = useMutation({
    mutationFn: async () =>
      unwrap(
        await api.PUT('/api/v1/admin/models/{model}', {
          params: { path: { model: model.key } },
          body: bodyOf(model, form),
        }),
      ),
    onSuccess: (m) => onSaved(m),
    onError: (err) => {
      if (err instanceof ApiRequestError && err.param && err.param !== 'model')
        setErrors({ [err.param]: `server:${err.message}` });
    },
  });

  // a refusal of the server brings its message into view
  const refusal = save.error;
  useEffect(() => {
    if (refusal) formRef.current?.querySelector('[role="alert"]')?.scrollIntoView({ block: 'center' });
  }, [refusal]);

  /** The text of a field's error: the form's own check, or the server's refusal (its words in English). */
  const errorOf = (name: string, label: string): string | undefined => {
    const e = errors[name];
    if (!e) return undefined;
    if (e.startsWith('server:'))
      return i18n.language.startsWith('en') ? e.slice(7) : t('catalog.serverField', { field: label });
    if (e.startsWith('env_'))
      return t('catalog.form.errors.env', { suffix: e === 'env_base_url' ? '_BASE_URL' : '_API_KEY' });
    return t(`catalog.form.errors.${e}`);
  };
  const label = (text: string, field: string): ReactNode =>
    over(field) ? (
      <Group gap={6} component="span" wrap="nowrap">
        <span>{text}</span>
        <Badge size="xs" color="grape" variant="light" component="span">
          {t('catalog.form.overridden')}
        </Badge>
      </Group>
    ) : (
      text
    );

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const found = validate(model, form);
    setErrors(found);
    if (Object.keys(found).length === 0) save.mutate();
  };

  const fallbackChoices = models
    .filter((m) => m.kind === model.kind && m.key !== model.key)
    .map((m) => ({ value: m.key, label: m.key }));
  const sizes = Object.keys(form.perImage);
  const qualities = [...new Set(sizes.flatMap((s) => Object.keys(form.perImage[s])))];

  return (
    <Drawer
      opened
      onClose={onClose}
      position="right"
      size={narrow ? '100%' : 'lg'}
      title={
        <Group gap="xs">
          <Text fw={700}>{model.key}</Text>
          <Badge size="sm" variant="light">
            {t(`catalog.sources.${model.source}`)}
          </Badge>
        </Group>
      }
    >
      <form ref={formRef} onSubmit={submit} noValidate aria-label={t('catalog.editOf', { model: model.key })}>
        <Stack>
          <ErrorAlert error={save.error} />
          {Object.keys(errors).length > 0 && !save.error && (
            <Alert color="red" role="alert">
              {t('catalog.form.errors.fixBelow')}
            </Alert>
          )}
          <Switch
            checked={form.enabled}
            onChange={(e) => set({ enabled: e.currentTarget.checked })}
            label={label(t('catalog.form.enabled'), 'enabled')}
          />
          <Radio.Group
            value={form.currency}
            onChange={(v) => set({ currency: v as 'RUB' | 'USD' })}
            label={label(t('catalog.form.currency'), 'currency')}
            description={t('catalog.form.currencyHint')}
          >
            <Group mt={4}>
              <Radio value="RUB" label={<span translate="no">RUB</span>} />
              <Radio value="USD" label={<span translate="no">USD</span>} />
            </Group>
          </Radio.Group>
          <Fieldset legend={t('catalog.form.tokenPrices')}>
            <SimpleGrid cols={{ base: 1, xs: 2 }}>
              {pricesOf(model.kind).map((name) => {
                const text = t(`catalog.form.${PRICE_LABEL[name]}`);
                const required = form.enabled && (name === 'input_per_1m' || name === 'output_per_1m');
                return (
                  <TextInput
                    key={name}
                    label={label(`${text}, ${t(`catalog.form.unit.${form.currency}`)}`, `prices.${name}`)}
                    aria-label={`${text}, ${t(`catalog.form.unit.${form.currency}`)}`}
                    inputMode="decimal"
                    required={required}
                    description={required ? undefined : t('catalog.form.emptyMeansNone')}
                    value={form.prices[name]}
                    onChange={(e) => set({ prices: { ...form.prices, [name]: e.currentTarget.value } })}
                    error={errorOf(`prices.${name}`, text)}
                  />
                );
              })}
            </SimpleGrid>
          </Fieldset>
          {model.kind === 'image' && (
            <Fieldset
              legend={label(`${t('catalog.form.perImage')}, ${t(`catalog.form.unit.${form.currency}`)}`, 'per_image')}
            >
              <Table.ScrollContainer minWidth={280}>
                <Table>
                  <Table.Thead>
                    <Table.Tr>
                      <Table.Th>{t('catalog.form.size')}</Table.Th>
                      {qualities.map((q) => (
                        <Table.Th key={q}>{q}</Table.Th>
                      ))}
                    </Table.Tr>
                  </Table.Thead>
                  <Table.Tbody>
                    {sizes.map((size) => (
                      <Table.Tr key={size}>
                        <Table.Th scope="row">{size}</Table.Th>
                        {qualities.map((q) => (
                          <Table.Td key={q}>
                            {form.perImage[size][q] !== undefined && (
                              <TextInput
                                aria-label={`${t('catalog.form.perImage')} ${size} ${q}`}
                                inputMode="decimal"
                                size="xs"
                                value={form.perImage[size][q]}
                                onChange={(e) =>
                                  set({
                                    perImage: {
                                      ...form.perImage,
                                      [size]: { ...form.perImage[size], [q]: e.currentTarget.value },
                                    },
                                  })
                                }
                                error={errorOf(`per_image.${size}.${q}`, `${size} ${q}`)}
                              />
                            )}
                          </Table.Td>
                        ))}
                      </Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
              </Table.ScrollContainer>
              <TextInput
                mt="sm"
                label={label(
                  `${t('catalog.form.imageInput')}, ${t(`catalog.form.unit.${form.currency}`)}`,
                  'image_input_per_1m',
                )}
                aria-label={t('catalog.form.imageInput')}
                inputMode="decimal"
                value={form.imageInput}
                onChange={(e) => set({ imageInput: e.currentTarget.value })}
                error={errorOf('image_input_per_1m', t('catalog.form.imageInput'))}
              />
            </Fieldset>
          )}
          <TagsInput
            label={label(t('catalog.form.aliases'), 'aliases')}
            aria-label={t('catalog.form.aliases')}
            description={t('catalog.form.aliasesHint')}
            value={form.aliases}
            onChange={(aliases) => set({ aliases })}
            error={errorOf('aliases', t('catalog.form.aliases'))}
          />
          <MultiSelect
            label={label(t('catalog.form.fallbacks'), 'fallbacks')}
            aria-label={t('catalog.form.fallbacks')}
            description={t('catalog.form.fallbacksHint')}
            data={fallbackChoices}
            value={form.fallbacks}
            onChange={(fallbacks) => set({ fallbacks })}
            searchable
            error={errorOf('fallbacks', t('catalog.form.fallbacks'))}
          />
          <Deployments
            form={form}
            set={set}
            errorOf={errorOf}
            legend={label(t('catalog.form.deployments'), 'deployments')}
          />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              {t('catalog.cancel')}
            </Button>
            <Button type="submit" loading={save.isPending}>
              {t('catalog.form.save')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Drawer>
  );
}

function Deployments({
  form,
  set,
  errorOf,
  legend,
}: {
  form: CatalogForm;
  set: (patch: Partial<CatalogForm>) => void;
  errorOf: (name: string, label: string) => string | undefined;
  legend: ReactNode;
}) {
  const { t } = useTranslation();
  const row = (i: number, patch: Partial<CatalogForm['deployments'][number]>) =>
    set({ deployments: form.deployments.map((d, j) => (j === i ? { ...d, ...patch } : d)) });
  const fields = [
    ['id', 'deploymentId'],
    ['base_url_env', 'baseUrlEnv'],
    ['api_key_env', 'apiKeyEnv'],
    ['weight', 'weight'],
  ] as const;
  return (
    <Fieldset legend={legend}>
      <Text size="xs" c="dimmed" mb="xs">
        {t('catalog.form.deploymentsHint')}
      </Text>
      <Stack gap="sm">
        {form.deployments.length === 0 && <Text size="sm">{t('catalog.form.useProvider')}</Text>}
        {form.deployments.map((d, i) => (
          <Group key={i} align="flex-start" gap="xs" wrap="wrap">
            {d.base_url && (
              <TextInput label={t('catalog.form.baseUrl')} value={d.base_url} readOnly w={{ base: '100%', xs: 220 }} />
            )}
            {fields.map(([field, text]) => (
              <TextInput
                key={field}
                label={`${t(`catalog.form.${text}`)} ${i + 1}`}
                value={d[field]}
                inputMode={field === 'weight' ? 'decimal' : undefined}
                onChange={(e) => row(i, { [field]: e.currentTarget.value })}
                error={errorOf(`deployments[${i}].${field}`, t(`catalog.form.${text}`))}
                w={field === 'weight' ? 90 : { base: '100%', xs: 170 }}
              />
            ))}
            <ActionIcon
              mt={24}
              variant="subtle"
              color="red"
              aria-label={t('catalog.form.removeDeployment', { n: i + 1 })}
              onClick={() => set({ deployments: form.deployments.filter((_, j) => j !== i) })}
            >
              ×
            </ActionIcon>
          </Group>
        ))}
        <Button
          variant="light"
          size="xs"
          w="fit-content"
          onClick={() =>
            set({
              deployments: [
                ...form.deployments,
                { id: `d${form.deployments.length}`, base_url: '', base_url_env: '', api_key_env: '', weight: '1' },
              ],
            })
          }
        >
          {t('catalog.form.addDeployment')}
        </Button>
      </Stack>
    </Fieldset>
  );
}
