import { useTranslation } from 'react-i18next';
import { Badge, Button, Code, Group, PasswordInput, Stack, Text, TextInput } from '@mantine/core';

/**
 * A secret header in the form. Stored headers are known by name only (the API never returns their
 * values): they are kept, replaced with a new value, or removed. New rows have a name and a value.
 */
export type HeaderRow =
  | { kind: 'stored'; key: string; name: string; state: 'keep' | 'replace' | 'remove'; value: string }
  | { kind: 'new'; key: string; name: string; value: string };

let nextKey = 0;
export const newHeaderRow = (): HeaderRow => ({ kind: 'new', key: `h${nextKey++}`, name: '', value: '' });
export const storedRows = (names: string[]): HeaderRow[] =>
  names.map((name) => ({ kind: 'stored', key: `s:${name}`, name, state: 'keep', value: '' }));

/** A row with a value but no name. */
export const missingName = (r: HeaderRow) => r.kind === 'new' && r.name.trim() === '' && r.value !== '';

/**
 * The `headers` of the request, or undefined when nothing changed (an edit then leaves them as they
 * are). On an edit, a kept header is sent as null: the API keeps its stored value.
 */
export function headersBody(rows: HeaderRow[], editing: boolean): Record<string, string | null> | undefined {
  const changed = rows.some((r) => (r.kind === 'stored' ? r.state !== 'keep' : r.name.trim() !== ''));
  if (editing && !changed) return undefined;
  const out: Record<string, string | null> = {};
  for (const r of rows) {
    if (r.kind === 'stored') {
      if (r.state === 'keep') out[r.name] = null;
      if (r.state === 'replace') out[r.name] = r.value;
    } else if (r.name.trim() !== '') out[r.name.trim()] = r.value;
  }
  if (!editing && Object.keys(out).length === 0) return undefined;
  return out;
}

export function HeadersEditor({ rows, onChange }: { rows: HeaderRow[]; onChange: (rows: HeaderRow[]) => void }) {
  const { t } = useTranslation();
  const update = (key: string, patch: Partial<HeaderRow>) =>
    onChange(rows.map((r) => (r.key === key ? ({ ...r, ...patch } as HeaderRow) : r)));
  const toggle = { 'aria-label': t('mcp.form.showValue') };
  return (
    <Stack gap="xs" role="group" aria-labelledby="mcp-headers-label">
      <Text size="sm" fw={500} id="mcp-headers-label">
        {t('mcp.form.headers')}
      </Text>
      <Text size="xs" c="dimmed">
        {t('mcp.form.headersHint')}
      </Text>
      {rows.map((r, i) =>
        r.kind === 'stored' ? (
          <Stack key={r.key} gap={4} data-testid={`stored-header-${r.name}`}>
            <Group gap="xs" wrap="wrap">
              <Code>{r.name}</Code>
              {r.state === 'remove' ? (
                <Badge color="red" variant="light" tt="none">
                  {t('mcp.form.removed')}
                </Badge>
              ) : (
                <Badge color="teal" variant="light" tt="none">
                  {t('mcp.form.set')}
                </Badge>
              )}
              {r.state === 'keep' && (
                <Button
                  size="compact-xs"
                  variant="light"
                  aria-label={t('mcp.form.replaceOf', { name: r.name })}
                  onClick={() => update(r.key, { state: 'replace', value: '' })}
                >
                  {t('mcp.form.replace')}
                </Button>
              )}
              {r.state === 'replace' && (
                <Button
                  size="compact-xs"
                  variant="default"
                  aria-label={t('mcp.form.keepOf', { name: r.name })}
                  onClick={() => update(r.key, { state: 'keep', value: '' })}
                >
                  {t('mcp.form.keep')}
                </Button>
              )}
              {r.state === 'remove' ? (
                <Button
                  size="compact-xs"
                  variant="default"
                  aria-label={t('mcp.form.undoRemoveOf', { name: r.name })}
                  onClick={() => update(r.key, { state: 'keep', value: '' })}
                >
                  {t('mcp.form.undoRemove')}
                </Button>
              ) : (
                <Button
                  size="compact-xs"
                  color="red"
                  variant="light"
                  aria-label={t('mcp.form.removeHeader', { name: r.name })}
                  onClick={() => update(r.key, { state: 'remove', value: '' })}
                >
                  {t('common.delete')}
                </Button>
              )}
            </Group>
            {r.state === 'replace' && (
              <PasswordInput
                label={t('mcp.form.newValueOf', { name: r.name })}
                value={r.value}
                autoComplete="off"
                visibilityToggleButtonProps={toggle}
                onChange={(e) => update(r.key, { value: e.currentTarget.value })}
              />
            )}
          </Stack>
        ) : (
          <Group key={r.key} gap="xs" align="flex-start" wrap="wrap">
            <TextInput
              aria-label={t('mcp.form.headerNameOf', { n: i + 1 })}
              placeholder={t('mcp.form.headerName')}
              value={r.name}
              maxLength={100}
              error={missingName(r) ? t('mcp.form.headerNameRequired') : undefined}
              onChange={(e) => update(r.key, { name: e.currentTarget.value })}
              style={{ flex: '1 1 140px' }}
            />
            <PasswordInput
              aria-label={t('mcp.form.headerValueOf', { n: i + 1 })}
              placeholder={t('mcp.form.headerValue')}
              value={r.value}
              autoComplete="off"
              visibilityToggleButtonProps={toggle}
              onChange={(e) => update(r.key, { value: e.currentTarget.value })}
              style={{ flex: '2 1 180px' }}
            />
            <Button
              variant="default"
              aria-label={t('mcp.form.removeHeader', { name: r.name || i + 1 })}
              onClick={() => onChange(rows.filter((x) => x.key !== r.key))}
            >
              ×
            </Button>
          </Group>
        ),
      )}
      <Group>
        <Button size="xs" variant="light" onClick={() => onChange([...rows, newHeaderRow()])}>
          {t('mcp.form.addHeader')}
        </Button>
      </Group>
    </Stack>
  );
}
