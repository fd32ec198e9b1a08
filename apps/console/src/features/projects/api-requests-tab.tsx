import { useTranslation } from 'react-i18next';
import { useMutation } from '@tanstack/react-query';
import { Alert, Button, Code, Group, Stack, Text, Title } from '@mantine/core';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { CopyValue, ErrorAlert, Snippet } from '../../components/common';
import { formatRub } from '../../i18n';
import { apiSnippets, chatRequestBody, type SnippetInput } from './api-snippets';

export function ApiRequestsTab(props: SnippetInput) {
  const { t, i18n } = useTranslation();
  const { projectId } = props;
  const s = apiSnippets(props);
  // "Run": the curl snippet's request, sent from the browser with the console's own credential
  const run = useMutation({
    mutationFn: async () =>
      unwrap(
        await api.POST('/api/v1/chat', { body: chatRequestBody(props) }),
      ) as components['schemas']['ChatResponseDto'],
  });
  return (
    <Stack>
      <Title order={2} size="h4">
        {t('apiRequests.title')}
      </Title>
      <Group gap="sm">
        <Text fw={600} id="project-id-label">
          {t('apiRequests.projectId')}
        </Text>
        <Code fz="md" aria-labelledby="project-id-label" data-testid="project-id">
          {projectId}
        </Code>
        <CopyValue value={projectId} label={t('apiRequests.copyProjectId')} />
      </Group>
      <Text size="sm">{t('apiRequests.hint')}</Text>
      <Snippet label={t('apiRequests.curl')} code={s.curl} />
      <Group>
        <Button size="xs" onClick={() => run.mutate()} loading={run.isPending}>
          {t('apiRequests.run')}
        </Button>
        <Text size="sm">{t('apiRequests.runHint')}</Text>
      </Group>
      <ErrorAlert error={run.error} />
      {run.data && (
        <Alert color="teal" title={t('apiRequests.answer')} data-testid="run-answer">
          <Text style={{ whiteSpace: 'pre-wrap' }}>{run.data.response.text}</Text>
          <Text size="sm" mt="xs">
            {t('apiRequests.answerFacts', {
              model: run.data.model.model,
              tokens: run.data.usage.total_tokens,
              cost: formatRub(run.data.cost.total_cost_rub, i18n.language),
            })}
          </Text>
        </Alert>
      )}
      <Snippet label={t('apiRequests.python')} code={s.python} />
      <Snippet label={t('apiRequests.typescript')} code={s.typescript} />
      {s.search && <Snippet label={t('apiRequests.search')} code={s.search} />}
    </Stack>
  );
}
