import { useState } from 'react';
import { useParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { Stack, Tabs } from '@mantine/core';
import { ErrorAlert, LoadingRows, PageHeader } from '../../components/common';
import { ApiRequestsTab } from './api-requests-tab';
import { MaterialsTab } from './materials-tab';
import { PlaygroundTab } from './playground-tab';
import { useMaterials, useProject, type Material } from './project-queries';

export function ProjectPage() {
  const { t } = useTranslation();
  const { projectId = '', tab = 'materials' } = useParams();
  const project = useProject(projectId);
  const materials = useMaterials(projectId);
  const [settingsTab, setSettingsTab] = useState<string | null>('api');
  const list = (materials.data?.data ?? []) as Material[];
  const kb = list.find((m) => m.knowledge_base_id)?.knowledge_base_id as string | undefined;
  const material = list.find((m) => m.status === 'completed' && m.kind !== 'knowledge_base')?.title;
  if (project.isPending) return <LoadingRows rows={6} />;
  if (project.error) return <ErrorAlert error={project.error} />;
  const p = project.data;
  return (
    <Stack>
      <PageHeader title={p.name} description={(p.description as string | null) ?? undefined} />
      <Tabs defaultValue={tab} keepMounted={false}>
        <Tabs.List mb="md">
          <Tabs.Tab value="materials">{t('project.materials')}</Tabs.Tab>
          <Tabs.Tab value="playground">{t('project.playground')}</Tabs.Tab>
          <Tabs.Tab value="settings">{t('project.settings')}</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="materials">
          <MaterialsTab projectId={p.id} />
        </Tabs.Panel>
        <Tabs.Panel value="playground">
          <PlaygroundTab projectId={p.id} />
        </Tabs.Panel>
        <Tabs.Panel value="settings">
          <Tabs value={settingsTab} onChange={setSettingsTab} variant="pills">
            <Tabs.List mb="md">
              <Tabs.Tab value="api">{t('project.apiRequests')}</Tabs.Tab>
            </Tabs.List>
            <Tabs.Panel value="api">
              <ApiRequestsTab
                projectId={p.id}
                baseUrl={window.location.origin}
                model="local"
                knowledgeBaseId={kb}
                materialTitle={material}
              />
            </Tabs.Panel>
          </Tabs>
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}
