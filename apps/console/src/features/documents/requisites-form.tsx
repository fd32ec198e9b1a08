import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Alert, Button, Group, Paper, Select, SimpleGrid, Stack, Text, TextInput, Title } from '@mantine/core';
import { ApiRequestError } from '../../api/client';
import { documentErrorText, fieldProblem } from './document-errors';

/** A requisites field: its name in the API (and in the dictionary), and whether it must be filled. */
export interface RequisitesField {
  name: string;
  required?: boolean;
  /** `vat` renders the VAT rate select */
  kind?: 'text' | 'email' | 'vat';
  wide?: boolean;
}

export type RequisitesValues = Record<string, string>;

const VAT_RATES = ['22', '10', '0', 'none'] as const;

/** A server error that names no field, in the interface language (the server's text as a tooltip). */
export function DocumentError({ error }: { error: unknown }) {
  const { t } = useTranslation();
  if (!error) return null;
  const server = error instanceof Error ? error.message : String(error);
  return (
    <Alert color="red" title={t('common.error')} role="alert" data-testid="document-error">
      <Text size="sm" title={server}>
        {documentErrorText(error, t)}
      </Text>
    </Alert>
  );
}

/**
 * The requisites of a company (the team's or the seller's) with the server's check-digit validation:
 * a refused field is marked under its input, in the interface language. `initial` is read on mount
 * (render the form once the stored requisites are known).
 */
export function RequisitesForm({
  title,
  hint,
  fields,
  initial,
  readOnly,
  onSave,
  testId,
}: {
  title: string;
  hint: string;
  fields: RequisitesField[];
  initial: RequisitesValues | null;
  readOnly?: boolean;
  onSave: (values: RequisitesValues) => Promise<unknown>;
  testId: string;
}) {
  const { t } = useTranslation();
  const empty = Object.fromEntries(fields.map((f) => [f.name, f.kind === 'vat' ? '22' : '']));
  const [values, setValues] = useState<RequisitesValues>({ ...empty, ...(initial ?? {}) });
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);
  const problem = fieldProblem(error, t);
  const set = (name: string, value: string) => {
    setValues((v) => ({ ...v, [name]: value }));
    setSaved(false);
  };
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    setSaved(false);
    try {
      await onSave(values);
      setSaved(true);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Paper withBorder p="md" data-testid={testId}>
      <form onSubmit={submit} noValidate>
        <Stack gap="sm">
          <Title order={2} size="h4">
            {title}
          </Title>
          <Text size="sm" c="dimmed">
            {hint}
          </Text>
          <SimpleGrid cols={{ base: 1, sm: 2 }}>
            {fields.map((f) => {
              const label = t(`documents.requisites.${f.name as 'inn'}`);
              const fieldError =
                problem?.field === f.name ? <span title={problem.server}>{problem.text}</span> : undefined;
              if (f.kind === 'vat')
                return (
                  <Select
                    key={f.name}
                    label={label}
                    data={VAT_RATES.map((r) => ({ value: r, label: t(`documents.requisites.vat.${r}`) }))}
                    value={values[f.name]}
                    onChange={(v) => set(f.name, v ?? '22')}
                    allowDeselect={false}
                    disabled={readOnly}
                    error={fieldError}
                  />
                );
              return (
                <TextInput
                  key={f.name}
                  label={label}
                  type={f.kind === 'email' ? 'email' : 'text'}
                  required={f.required}
                  value={values[f.name] ?? ''}
                  onChange={(e) => set(f.name, e.currentTarget.value)}
                  readOnly={readOnly}
                  error={fieldError}
                  style={f.wide ? { gridColumn: '1 / -1' } : undefined}
                />
              );
            })}
          </SimpleGrid>
          {readOnly ? (
            <Text size="xs" c="dimmed">
              {t('documents.requisites.readOnly')}
            </Text>
          ) : (
            <Group>
              <Button type="submit" loading={busy}>
                {t('documents.requisites.save')}
              </Button>
              {saved && (
                <Text size="sm" c="var(--mantine-color-green-light-color)" role="status">
                  {t('documents.requisites.saved')}
                </Text>
              )}
            </Group>
          )}
          {error !== null && !problem && <DocumentError error={error} />}
          {error instanceof ApiRequestError && problem && !fields.some((f) => f.name === problem.field) && (
            <DocumentError error={error} />
          )}
        </Stack>
      </form>
    </Paper>
  );
}

/** The values to send: blank optional fields as null, everything trimmed. */
export function requisitesBody(fields: RequisitesField[], values: RequisitesValues): Record<string, string | null> {
  return Object.fromEntries(
    fields.map((f) => {
      const v = (values[f.name] ?? '').trim();
      return [f.name, v === '' && !f.required ? null : v];
    }),
  );
}

/** The API's view of requisites as form values (nulls as blanks). */
export function requisitesValues(fields: RequisitesField[], data: Record<string, unknown>): RequisitesValues {
  return Object.fromEntries(fields.map((f) => [f.name, typeof data[f.name] === 'string' ? String(data[f.name]) : '']));
}
