import { useTranslation } from 'react-i18next';
import { Code, Group, Stack, Text, Title } from '@mantine/core';
import { CopyValue, Snippet } from '../../components/common';
import { apiSnippets } from './api-snippets';

export function ApiRequestsTab({
  projectId,
  baseUrl,
  model,
  knowledgeBaseId,
}: {
  projectId: string;
  baseUrl: string;
  model: string;
  knowledgeBaseId?: string | null;
}) {
  const { t } = useTranslation();
  const s = apiSnippets({ baseUrl, projectId, model, knowledgeBaseId });
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
      <Text size="sm" c="dimmed">
        {t('apiRequests.hint')}
      </Text>
      <Snippet label={t('apiRequests.curl')} code={s.curl} />
      <Snippet label={t('apiRequests.python')} code={s.python} />
      <Snippet label={t('apiRequests.typescript')} code={s.typescript} />
      <Snippet label={t('apiRequests.search')} code={s.search} />
    </Stack>
  );
}
