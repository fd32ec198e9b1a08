import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { Anchor, Button, Modal, Stack, Table, Textarea, TextInput } from '@mantine/core';
import { usePermissions } from '../../auth/auth-context';
import { EmptyState, ErrorAlert, LoadingRows, PageHeader } from '../../components/common';
import { formatDate } from '../../i18n';
import { useCreateProject, useProjects, type Project } from './project-queries';

export function CreateProjectForm({ onCreated }: { onCreated: (p: Project) => void }) {
  const { t } = useTranslation();
  const create = useCreateProject();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const p = await create.mutateAsync({ name: name.trim(), description: description.trim() || undefined });
    onCreated(p);
  };
  return (
    <form onSubmit={(e) => void submit(e).catch(() => undefined)}>
      <Stack>
        <ErrorAlert error={create.error} />
        <TextInput
          label={t('projects.name')}
          required
          maxLength={200}
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
        />
        <Textarea
          label={t('projects.description')}
          value={description}
          onChange={(e) => setDescription(e.currentTarget.value)}
        />
        <Button type="submit" loading={create.isPending} disabled={!name.trim()}>
          {t('projects.create')}
        </Button>
      </Stack>
    </form>
  );
}

export function ProjectsPage() {
  const { t, i18n } = useTranslation();
  const can = usePermissions();
  const projects = useProjects();
  const navigate = useNavigate();
  const [open, setOpen] = useState(false);
  const list = (projects.data?.data ?? []) as Project[];
  const createButton = can.canWrite && <Button onClick={() => setOpen(true)}>{t('projects.new')}</Button>;
  return (
    <Stack>
      <PageHeader title={t('projects.title')} description={t('projects.subtitle')} actions={createButton} />
      <ErrorAlert error={projects.error} />
      {projects.isPending ? (
        <LoadingRows />
      ) : list.length === 0 ? (
        <EmptyState title={t('projects.empty')} hint={t('projects.emptyHint')} action={createButton} />
      ) : (
        <Table.ScrollContainer minWidth={640}>
          <Table striped highlightOnHover aria-label={t('projects.title')}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('projects.name')}</Table.Th>
                <Table.Th>{t('projects.materials')}</Table.Th>
                <Table.Th>{t('common.created')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {list.map((p) => (
                <Table.Tr key={p.id}>
                  <Table.Td>
                    <Anchor component={Link} to={`/projects/${p.id}`}>
                      {p.name}
                    </Anchor>
                  </Table.Td>
                  <Table.Td>{p.materials.total}</Table.Td>
                  <Table.Td>{formatDate(p.created_at, i18n.language)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      <Modal opened={open} onClose={() => setOpen(false)} title={t('projects.new')}>
        <CreateProjectForm
          onCreated={(p) => {
            setOpen(false);
            navigate(`/projects/${p.id}`);
          }}
        />
      </Modal>
    </Stack>
  );
}
