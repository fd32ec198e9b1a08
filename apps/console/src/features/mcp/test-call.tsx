import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation } from '@tanstack/react-query';
import { Badge, Button, Code, Group, Image, Paper, Select, Stack, Text, Textarea, Title } from '@mantine/core';
import { api, unwrap } from '../../api/client';
import { ErrorAlert } from '../../components/common';
import { formatRub } from '../../i18n';
import { argumentsTemplate, parseArguments, type McpCallResult, type McpTool } from './mcp-queries';

type Part = Record<string, unknown> & { type?: string };

/** One part of a result: text as text, an image as an image, anything else as its JSON. */
function ResultPart({ part, n }: { part: Part; n: number }) {
  const { t } = useTranslation();
  if (part.type === 'text' && typeof part.text === 'string')
    return (
      <Code block style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }} aria-label={t('mcp.call.text')}>
        {part.text}
      </Code>
    );
  if (part.type === 'image' && typeof part.data === 'string' && typeof part.mimeType === 'string')
    return (
      <Image
        src={`data:${part.mimeType};base64,${part.data}`}
        alt={t('mcp.call.image', { n })}
        w="auto"
        maw={320}
        mah={320}
        fit="contain"
        style={{ imageRendering: 'pixelated', minWidth: 32, minHeight: 32 }}
        radius="sm"
      />
    );
  return (
    <Stack gap={2}>
      <Text size="xs" c="dimmed">
        {t('mcp.call.other', { type: part.type ?? '?' })}
      </Text>
      <Code block style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>
        {JSON.stringify(part, null, 2)}
      </Code>
    </Stack>
  );
}

export function CallResult({ result }: { result: McpCallResult }) {
  const { t, i18n } = useTranslation();
  const parts = result.content as Part[];
  return (
    <Paper withBorder p="sm" radius="md" data-testid="mcp-call-result" aria-live="polite">
      <Stack gap="xs">
        <Group gap="xs" wrap="wrap">
          <Title order={4} size="h6">
            {t('mcp.call.result')}
          </Title>
          {result.is_error ? (
            <Badge color="red" variant="light" tt="none">
              {t('mcp.call.toolError')}
            </Badge>
          ) : (
            <Badge color="teal" variant="light" tt="none">
              {t('mcp.call.ok')}
            </Badge>
          )}
          <Text size="sm" data-testid="mcp-call-duration">
            {t('mcp.call.duration', { ms: result.duration_ms })}
          </Text>
          {result.cost_rub > 0 && (
            <Text size="sm">{t('mcp.call.cost', { amount: formatRub(result.cost_rub, i18n.language) })}</Text>
          )}
        </Group>
        {parts.length === 0 && <Text c="dimmed">{t('mcp.call.empty')}</Text>}
        {parts.map((p, i) => (
          <ResultPart key={i} part={p} n={i + 1} />
        ))}
        {result.structured_content && (
          <Stack gap={2}>
            <Text size="xs" fw={600}>
              {t('mcp.call.structured')}
            </Text>
            <Code block style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>
              {JSON.stringify(result.structured_content, null, 2)}
            </Code>
          </Stack>
        )}
      </Stack>
    </Paper>
  );
}

/** Runs one tool of the server with JSON arguments (checked in the form) and shows what it answered. */
export function TestCall({ teamId, serverId, tools }: { teamId: string; serverId: string; tools: McpTool[] }) {
  const { t } = useTranslation();
  const [tool, setTool] = useState<string | null>(null);
  const [args, setArgs] = useState('{}');
  const [touched, setTouched] = useState(false);
  const parsed = parseArguments(args);
  // the parser's own message is in English: only the position is kept from it
  const position = parsed.ok ? undefined : /position (\d+)/.exec(parsed.message)?.[1];
  const argsError =
    !touched || parsed.ok
      ? undefined
      : parsed.reason === 'object'
        ? t('mcp.call.notObject')
        : [t('mcp.call.invalidJson'), position ? t('mcp.call.atPosition', { n: position }) : ''].join(' ').trim();
  const call = useMutation({
    mutationFn: async (input: { tool: string; args: Record<string, unknown> }) =>
      unwrap(
        await api.POST('/api/v1/teams/{team_id}/mcp-servers/{id}/tools/{tool}/call', {
          params: { path: { team_id: teamId, id: serverId, tool: input.tool } },
          body: { arguments: input.args },
        }),
      ),
  });
  return (
    <form
      data-testid="mcp-test-call"
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        setTouched(true);
        if (tool && parsed.ok) call.mutate({ tool, args: parsed.value });
      }}
    >
      <Stack gap="sm">
        <Select
          label={t('mcp.call.tool')}
          placeholder={t('mcp.call.pickTool')}
          data={tools.map((x) => x.name)}
          value={tool}
          searchable
          onChange={(v) => {
            setTool(v);
            setTouched(false);
            call.reset();
            setArgs(argumentsTemplate(tools.find((x) => x.name === v)?.input_schema));
          }}
        />
        <Textarea
          label={t('mcp.call.arguments')}
          description={t('mcp.call.argumentsHint')}
          autosize
          minRows={3}
          maxRows={16}
          styles={{ input: { fontFamily: 'monospace' } }}
          value={args}
          error={argsError}
          onChange={(e) => {
            setArgs(e.currentTarget.value);
            setTouched(true);
          }}
        />
        <Group>
          <Button type="submit" loading={call.isPending} disabled={!tool || !parsed.ok}>
            {t('mcp.call.run')}
          </Button>
        </Group>
        <ErrorAlert error={call.error} />
        {call.data && <CallResult result={call.data} />}
      </Stack>
    </form>
  );
}
