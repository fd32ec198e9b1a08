import { useTranslation } from 'react-i18next';
import { Accordion, Code, Group, Stack, Text } from '@mantine/core';
import { EmptyState } from '../../components/common';
import type { McpTool } from './mcp-queries';

/** The tools the registry last read from a server: name, description, and the input schema folded away. */
export function ToolList({ tools }: { tools: McpTool[] }) {
  const { t } = useTranslation();
  if (tools.length === 0) return <EmptyState title={t('mcp.detail.noTools')} hint={t('mcp.detail.noToolsHint')} />;
  return (
    <Accordion variant="separated" multiple chevronPosition="left" data-testid="mcp-tool-list">
      {tools.map((tool) => (
        <Accordion.Item key={tool.name} value={tool.name}>
          <Accordion.Control>
            <Stack gap={2}>
              <Group gap="xs" wrap="wrap">
                <Text fw={600} ff="monospace" size="sm" translate="no">
                  {tool.name}
                </Text>
                <Text size="xs" c="dimmed">
                  {t('mcp.detail.gatewayName', { name: tool.gateway_name })}
                </Text>
              </Group>
              {/* the server's own words: shown as it gives them, never translated */}
              <Text
                size="sm"
                c={tool.description ? undefined : 'dimmed'}
                translate={tool.description ? 'no' : undefined}
              >
                {(tool.description as string | null) || t('mcp.detail.noDescription')}
              </Text>
            </Stack>
          </Accordion.Control>
          <Accordion.Panel>
            <Text size="xs" fw={600} mb={4}>
              {t('mcp.detail.schema')}
            </Text>
            <Code block style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>
              {JSON.stringify(tool.input_schema, null, 2)}
            </Code>
          </Accordion.Panel>
        </Accordion.Item>
      ))}
    </Accordion>
  );
}
