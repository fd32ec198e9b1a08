import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Badge, Button, Code, Group, Stack, TagsInput, Text } from '@mantine/core';
import { ErrorAlert, FormDialog } from '../../components/common';
import type { ApiKey } from './keys-table';

/** As the keys API checks each entry: `server/tool`, `*` anywhere. */
export const MCP_TOOL_PATTERN = /^[a-z0-9_*-]{1,64}\/[^\s/]{1,200}$/;

/**
 * A key's MCP tool allowlist: `server/tool` patterns with `*`, typed or picked from the team's
 * registered servers (`server/*` and each tool). Empty: the key reaches no tool (MCP is off).
 */
export function McpToolsField({
  value,
  onChange,
  suggestions,
}: {
  value: string[];
  onChange: (v: string[]) => void;
  suggestions: string[];
}) {
  const { t } = useTranslation();
  const bad = value.filter((v) => !MCP_TOOL_PATTERN.test(v));
  return (
    <TagsInput
      label={t('mcp.keys.field')}
      description={t('mcp.keys.hint')}
      placeholder={value.length ? undefined : t('mcp.keys.placeholder')}
      data={[...new Set(suggestions)].filter((s) => !value.includes(s))}
      value={value}
      onChange={(v) => onChange(v.map((x) => x.trim()).filter(Boolean))}
      error={bad.length ? bad.map((v) => t('mcp.keys.invalid', { value: v })).join(' ') : undefined}
      acceptValueOnBlur
      clearable
      clearButtonProps={{ 'aria-label': t('mcp.keys.clear') }}
      splitChars={[',', ' ']}
      maxTags={200}
      comboboxProps={{ withinPortal: true }}
      data-testid="mcp-tools-field"
    />
  );
}

export const mcpToolsValid = (v: string[]) => v.every((x) => MCP_TOOL_PATTERN.test(x));

/** The allowlist in the keys table: its patterns, or "MCP off". */
export function McpToolsSummary({ tools }: { tools: string[] }) {
  const { t } = useTranslation();
  if (tools.length === 0)
    return (
      <Badge color="gray" variant="light" tt="none">
        {t('mcp.keys.off')}
      </Badge>
    );
  return (
    <Group gap={4}>
      {tools.map((p) => (
        <Code key={p}>{p}</Code>
      ))}
    </Group>
  );
}

/** Changes the allowlist of a key (owners and admins, as the API allows). */
export function EditMcpTools({
  apiKey,
  suggestions,
  onSave,
}: {
  apiKey: ApiKey;
  suggestions: string[];
  onSave: (id: string, tools: string[]) => Promise<unknown>;
}) {
  const { t } = useTranslation();
  const [value, setValue] = useState<string[]>([]);
  return (
    <FormDialog
      label={t('mcp.keys.edit')}
      ariaLabel={t('mcp.keys.editOf', { prefix: apiKey.prefix })}
      title={t('mcp.keys.editOf', { prefix: apiKey.prefix })}
      onOpen={() => setValue([...(apiKey.allowed_mcp_tools ?? [])])}
      onSubmit={() => onSave(apiKey.id, value)}
    >
      {({ busy, error, close }) => (
        <Stack>
          <McpToolsField value={value} onChange={setValue} suggestions={suggestions} />
          {value.length === 0 && (
            <Text size="sm" c="dimmed">
              {t('mcp.keys.off')}
            </Text>
          )}
          <ErrorAlert error={error} />
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              {t('common.cancel')}
            </Button>
            <Button type="submit" loading={busy} disabled={!mcpToolsValid(value)}>
              {t('mcp.keys.save')}
            </Button>
          </Group>
        </Stack>
      )}
    </FormDialog>
  );
}
