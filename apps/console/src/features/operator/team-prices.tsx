import { useState, type FormEvent, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  Badge,
  Button,
  Fieldset,
  Group,
  Select,
  SimpleGrid,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { api, ApiRequestError, unwrap } from '../../api/client';
import { ConfirmAction, ErrorAlert, FormDialog, LoadingRows } from '../../components/common';
import { formatRub } from '../../i18n';
import type { AdminModel } from '../models/catalog-form';
import { RubPrices } from '../models/model-prices';
import {
  checkOwn,
  FormCheckError,
  OWN_FIELDS,
  ownFieldsOf,
  ownFormOf,
  ownPricesOf,
  percentOf,
  pricingBody,
  withModel,
  type FieldErrors,
  type OwnField,
  type OwnForm,
  type OwnPrices,
  type TeamPricing,
  typed,
} from './team-prices-form';

const TOKEN_FIELDS = OWN_FIELDS.filter((f) => f.endsWith('_per_1m_rub'));
const ITEM_FIELDS = OWN_FIELDS.filter((f) => !f.endsWith('_per_1m_rub'));

const pricingKey = (teamId: string) => ['admin-team-pricing', teamId];

/** The team's prices (GET) and their replacement (PUT answers the new view, kept as the query's data). */
function useTeamPricing(teamId: string) {
  const qc = useQueryClient();
  const pricing = useQuery({
    queryKey: pricingKey(teamId),
    queryFn: async () =>
      unwrap(await api.GET('/api/v1/admin/teams/{team_id}/pricing', { params: { path: { team_id: teamId } } })),
  });
  const put = async (body: ReturnType<typeof pricingBody>) => {
    const next = unwrap(
      await api.PUT('/api/v1/admin/teams/{team_id}/pricing', { params: { path: { team_id: teamId } }, body }),
    );
    qc.setQueryData(pricingKey(teamId), next);
    // the team's own model list (its Models page) shows its prices
    void qc.invalidateQueries({ queryKey: ['models'] });
    return next;
  };
  return { pricing, put };
}

/**
 * The text of a field's error: the form's own check, or the server's refusal naming the field
 * (in English its own words; in another language that the server refused the field).
 */
function useFieldError(error: unknown) {
  const { t, i18n } = useTranslation();
  return (param: string, label: string): string | undefined => {
    if (error instanceof FormCheckError) {
      const key = error.fields[param];
      return key ? t(`teamPrices.errors.${key}`) : undefined;
    }
    if (error instanceof ApiRequestError && error.param === param)
      return i18n.language.startsWith('en') ? error.message : t('teamPrices.serverField', { field: label });
    return undefined;
  };
}

/** An error the fields do not show themselves (not a form check, not a refusal naming a shown field). */
function otherError(error: unknown, shown: string[]): unknown {
  if (error instanceof FormCheckError) return null;
  if (error instanceof ApiRequestError && error.param && shown.includes(error.param)) return null;
  return error;
}

/** Operator → a team → Prices: markup and discount, own prices per model, and what the team pays today. */
export function TeamPrices({ teamId }: { teamId: string }) {
  const { t } = useTranslation();
  const { pricing, put } = useTeamPricing(teamId);
  const models = useQuery({
    queryKey: ['admin-models'],
    queryFn: async () => unwrap(await api.GET('/api/v1/admin/models')),
  });
  if (pricing.isPending) return <LoadingRows />;
  if (pricing.error) return <ErrorAlert error={pricing.error} />;
  const catalog = (models.data?.data ?? []) as AdminModel[];
  return (
    <Stack>
      <Text size="sm" c="dimmed">
        {t('teamPrices.hint')}
      </Text>
      <Percents pricing={pricing.data} put={put} />
      <ErrorAlert error={models.error} />
      <OwnPricesTable pricing={pricing.data} catalog={catalog} put={put} />
      <PaysToday pricing={pricing.data} catalog={catalog} />
    </Stack>
  );
}

type Put = (body: ReturnType<typeof pricingBody>) => Promise<TeamPricing>;

function Percents({ pricing, put }: { pricing: TeamPricing; put: Put }) {
  const { t, i18n } = useTranslation();
  const [markup, setMarkup] = useState(typed(pricing.markup_percent, i18n.language));
  const [discount, setDiscount] = useState(typed(pricing.discount_percent, i18n.language));
  const [checked, setChecked] = useState<FieldErrors>({});
  const save = useMutation({
    mutationFn: () =>
      put(
        pricingBody(
          { markup_percent: percentOf(markup), discount_percent: percentOf(discount) },
          pricing.models as Record<string, OwnPrices>,
        ),
      ),
  });
  const fieldError = useFieldError(Object.keys(checked).length ? new FormCheckError(checked) : save.error);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const found: FieldErrors = {};
    if (Number.isNaN(percentOf(markup))) found.markup_percent = 'number';
    if (Number.isNaN(percentOf(discount))) found.discount_percent = 'number';
    setChecked(found);
    if (Object.keys(found).length === 0) save.mutate();
  };
  return (
    <form onSubmit={submit} noValidate aria-label={t('teamPrices.percents')}>
      <Title order={3} size="h6" mb="xs">
        {t('teamPrices.percents')}
      </Title>
      <Group align="flex-start">
        <TextInput
          label={t('teamPrices.markup')}
          inputMode="decimal"
          value={markup}
          onChange={(e) => setMarkup(e.currentTarget.value)}
          error={fieldError('markup_percent', t('teamPrices.markup'))}
          w={{ base: '100%', xs: 200 }}
        />
        <TextInput
          label={t('teamPrices.discount')}
          inputMode="decimal"
          value={discount}
          onChange={(e) => setDiscount(e.currentTarget.value)}
          error={fieldError('discount_percent', t('teamPrices.discount'))}
          w={{ base: '100%', xs: 200 }}
        />
        <Button type="submit" mt={25} loading={save.isPending}>
          {t('teamPrices.savePercents')}
        </Button>
        {save.isSuccess && (
          <Text size="sm" mt={31} role="status">
            {t('teamPrices.saved')}
          </Text>
        )}
      </Group>
      <ErrorAlert error={otherError(save.error, ['markup_percent', 'discount_percent'])} />
    </form>
  );
}

/** One own price in the table: the amount, "none" for a fee of 0, or "catalog". */
function OwnCell({ field, value }: { field: OwnField; value: number | null | undefined }) {
  const { t, i18n } = useTranslation();
  if (value === null || value === undefined)
    return (
      <Text size="sm" c="dimmed">
        {t('teamPrices.catalog')}
      </Text>
    );
  if (field === 'request_rub' && value === 0) return <Text size="sm">{t('teamPrices.noFee')}</Text>;
  return (
    <Text size="sm" translate="no" style={{ whiteSpace: 'nowrap' }}>
      {formatRub(value, i18n.language)}
    </Text>
  );
}

function OwnPricesTable({ pricing, catalog, put }: { pricing: TeamPricing; catalog: AdminModel[]; put: Put }) {
  const { t } = useTranslation();
  const own = pricing.models as Record<string, OwnPrices>;
  const keys = Object.keys(own).sort();
  const kinds = new Map(catalog.map((m) => [m.key, m.kind]));
  const remove = useMutation({ mutationFn: (key: string) => put(pricingBody(pricing, withModel(own, key, null))) });
  return (
    <Stack gap="xs">
      <SectionHeader title={t('teamPrices.own')} hint={t('teamPrices.ownHint')}>
        <ModelPricesDialog pricing={pricing} catalog={catalog} put={put} model={null} />
      </SectionHeader>
      <ErrorAlert error={remove.error} />
      {keys.length === 0 ? (
        <Text size="sm">{t('teamPrices.noOwn')}</Text>
      ) : (
        <Table.ScrollContainer minWidth={860}>
          <Table aria-label={t('teamPrices.own')} verticalSpacing="xs">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('teamPrices.model')}</Table.Th>
                {OWN_FIELDS.map((f) => (
                  <Table.Th key={f}>{t(`teamPrices.column.${f}`)}</Table.Th>
                ))}
                <Table.Th>{t('teamPrices.actions')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {keys.map((key) => (
                <Table.Tr key={key} data-model={key}>
                  <Table.Td>
                    <Text size="sm" fw={600} translate="no" style={{ whiteSpace: 'nowrap' }}>
                      {key}
                    </Text>
                  </Table.Td>
                  {OWN_FIELDS.map((f) => (
                    <Table.Td key={f}>
                      {ownFieldsOf(kinds.get(key), own[key]).includes(f) ? (
                        <OwnCell field={f} value={own[key][f]} />
                      ) : (
                        <Text size="sm" c="dimmed" title={t('teamPrices.notApplicable')}>
                          —
                        </Text>
                      )}
                    </Table.Td>
                  ))}
                  <Table.Td>
                    <Stack gap={4} align="flex-start">
                      <ModelPricesDialog pricing={pricing} catalog={catalog} put={put} model={key} />
                      <ConfirmAction
                        label={t('teamPrices.remove')}
                        ariaLabel={t('teamPrices.removeOf', { model: key })}
                        title={t('teamPrices.removeTitle', { model: key })}
                        body={t('teamPrices.removeBody')}
                        busy={remove.isPending}
                        onConfirm={() =>
                          remove.mutateAsync(key).then(
                            () => undefined,
                            () => undefined,
                          )
                        }
                      />
                    </Stack>
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

/** Adds (model null: picked from the catalog) or edits one model's own prices; saved with the PUT. */
function ModelPricesDialog({
  pricing,
  catalog,
  put,
  model,
}: {
  pricing: TeamPricing;
  catalog: AdminModel[];
  put: Put;
  model: string | null;
}) {
  const { t, i18n } = useTranslation();
  const own = pricing.models as Record<string, OwnPrices>;
  const [picked, setPicked] = useState<string | null>(model);
  const [form, setForm] = useState<OwnForm>(() => ownFormOf(model ? own[model] : undefined, i18n.language));
  const key = model ?? picked;
  const kind = catalog.find((m) => m.key === key)?.kind;
  const fields = ownFieldsOf(kind, key ? own[key] : undefined);
  const choices = catalog.filter((m) => !own[m.key]).map((m) => ({ value: m.key, label: m.key }));
  return (
    <FormDialog
      size="lg"
      label={model ? t('teamPrices.edit') : t('teamPrices.add')}
      ariaLabel={model ? t('teamPrices.editOf', { model }) : undefined}
      title={model ? t('teamPrices.editTitle', { model }) : t('teamPrices.addTitle')}
      onOpen={() => {
        setPicked(model);
        setForm(ownFormOf(model ? own[model] : undefined, i18n.language));
      }}
      onSubmit={async () => {
        const found = checkOwn(key, form);
        if (Object.keys(found).length) throw new FormCheckError(found);
        await put(pricingBody(pricing, withModel(own, key!, ownPricesOf(form))));
      }}
    >
      {({ busy, error, close }) => (
        <DialogFields
          modelKey={key}
          adding={model === null}
          choices={choices}
          picked={picked}
          setPicked={setPicked}
          fields={fields}
          form={form}
          setForm={setForm}
          busy={busy}
          error={error}
          close={close}
        />
      )}
    </FormDialog>
  );
}

function DialogFields({
  modelKey,
  adding,
  choices,
  picked,
  setPicked,
  fields,
  form,
  setForm,
  busy,
  error,
  close,
}: {
  modelKey: string | null;
  adding: boolean;
  choices: { value: string; label: string }[];
  picked: string | null;
  setPicked: (v: string | null) => void;
  fields: OwnField[];
  form: OwnForm;
  setForm: (f: OwnForm) => void;
  busy: boolean;
  error: unknown;
  close: () => void;
}) {
  const { t } = useTranslation();
  const fieldError = useFieldError(error);
  const params = ['model', `models.${modelKey}`, ...OWN_FIELDS.map((f) => `models.${modelKey}.${f}`)];
  return (
    <Stack gap="sm">
      <ErrorAlert error={otherError(error, params)} />
      {adding && (
        <Select
          label={t('teamPrices.pickModel')}
          placeholder={t('teamPrices.pickModelPlaceholder')}
          data={choices}
          value={picked}
          onChange={setPicked}
          searchable
          required
          error={
            fieldError('model', t('teamPrices.pickModel')) ??
            fieldError(`models.${modelKey}`, t('teamPrices.pickModel'))
          }
          comboboxProps={{ withinPortal: true }}
        />
      )}
      {modelKey && (
        <>
          <Text size="xs" c="dimmed">
            {t('teamPrices.emptyMeansCatalog')}
          </Text>
          {[TOKEN_FIELDS, ITEM_FIELDS].map((group, i) => {
            const shown = group.filter((f) => fields.includes(f));
            if (shown.length === 0) return null;
            return (
              <Fieldset key={i} legend={t(i === 0 ? 'teamPrices.tokenPrices' : 'teamPrices.otherPrices')}>
                <SimpleGrid cols={{ base: 1, xs: 2 }} spacing="sm" verticalSpacing="xs">
                  {shown.map((f) => (
                    <TextInput
                      key={f}
                      label={`${t(`teamPrices.field.${f}`)}, ${t('catalog.form.unit.RUB')}`}
                      inputMode="decimal"
                      value={form[f]}
                      onChange={(e) => setForm({ ...form, [f]: e.currentTarget.value })}
                      error={fieldError(`models.${modelKey}.${f}`, t(`teamPrices.field.${f}`))}
                    />
                  ))}
                </SimpleGrid>
                {i === 1 && (
                  <Text size="xs" c="dimmed" mt="xs">
                    {t('teamPrices.feeHint')}
                  </Text>
                )}
              </Fieldset>
            );
          })}
        </>
      )}
      <Group justify="flex-end">
        <Button variant="default" onClick={close}>
          {t('teamPrices.cancel')}
        </Button>
        <Button type="submit" loading={busy}>
          {t('teamPrices.save')}
        </Button>
      </Group>
    </Stack>
  );
}

/** Every catalog model with the RUB prices the team pays for it now (the GET's `prices`). */
function PaysToday({ pricing, catalog }: { pricing: TeamPricing; catalog: AdminModel[] }) {
  const { t } = useTranslation();
  const [q, setQ] = useState('');
  const own = pricing.models as Record<string, OwnPrices>;
  const kinds = new Map(catalog.map((m) => [m.key, m.kind]));
  const needle = q.trim().toLowerCase();
  const rows = pricing.prices
    .filter((p) => !needle || p.model.toLowerCase().includes(needle))
    .sort((a, b) => Number(!own[a.model]) - Number(!own[b.model]) || a.model.localeCompare(b.model));
  return (
    <Stack gap="xs">
      <SectionHeader title={t('teamPrices.today')} hint={t('teamPrices.todayHint')}>
        <TextInput
          label={t('teamPrices.search')}
          value={q}
          onChange={(e) => setQ(e.currentTarget.value)}
          w={{ base: '100%', xs: 220 }}
        />
      </SectionHeader>
      {rows.length === 0 ? (
        <Text size="sm">{t('teamPrices.noMatch')}</Text>
      ) : (
        <Table.ScrollContainer minWidth={560}>
          <Table striped aria-label={t('teamPrices.today')} verticalSpacing="xs">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('teamPrices.model')}</Table.Th>
                <Table.Th>{t('teamPrices.paysToday')}</Table.Th>
                <Table.Th>{t('teamPrices.source')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((p) => (
                <Table.Tr key={p.model} data-model={p.model}>
                  <Table.Td>
                    <Text size="sm" fw={600} translate="no">
                      {p.model}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    {p.pricing ? (
                      <RubPrices kind={kinds.get(p.model) ?? 'chat'} prices={p.pricing} perImage={p.per_image_rub} />
                    ) : (
                      <Text size="sm" c="dimmed">
                        {t('teamPrices.noRate')}
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td>
                    <Badge size="sm" variant="light" color={own[p.model] ? 'grape' : 'gray'}>
                      {own[p.model] ? t('teamPrices.sourceOwn') : t('teamPrices.sourceCatalog')}
                    </Badge>
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

/** A section's title and hint, with its control (a button, a search) on the right. */
function SectionHeader({ title, hint, children }: { title: string; hint: string; children: ReactNode }) {
  return (
    <Group justify="space-between" align="flex-end">
      <Stack gap={2}>
        <Title order={3} size="h6">
          {title}
        </Title>
        <Text size="xs" c="dimmed">
          {hint}
        </Text>
      </Stack>
      {children}
    </Group>
  );
}
