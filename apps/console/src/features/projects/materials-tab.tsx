import { useRef, useState, type DragEvent, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Badge, Button, Group, Paper, Progress, Select, Stack, Table, Text, TextInput, Tooltip } from '@mantine/core';
import { api, unwrap } from '../../api/client';
import { uploadWithProgress } from '../../api/upload';
import { usePermissions } from '../../auth/auth-context';
import { ConfirmAction, EmptyState, ErrorAlert, LoadingRows } from '../../components/common';
import { formatNumber } from '../../i18n';
import { ChatForm } from './chat-form';
import { IntegrationForm } from './integration-form';
import { MessengerImportForm } from './messenger-import-form';
import { useMaterials, type Material } from './project-queries';

interface Upload {
  id: number;
  name: string;
  progress: number;
  error?: string;
}

const STATUS_COLOR: Record<string, string> = {
  in_progress: 'blue',
  completed: 'teal',
  failed: 'red',
  cancelled: 'gray',
};

export function StatusBadge({ status }: { status: string }) {
  const { t } = useTranslation();
  return (
    <Badge color={STATUS_COLOR[status] ?? 'gray'} variant="light">
      {t(`status.${status}`, { defaultValue: status })}
    </Badge>
  );
}

/** Files dropped or picked are uploaded one request each, every one with its own progress bar. */
export function UploadZone({ label, onFiles }: { label: string; onFiles: (files: File[]) => void }) {
  const { t } = useTranslation();
  const input = useRef<HTMLInputElement>(null);
  const [over, setOver] = useState(false);
  const drop = (e: DragEvent) => {
    e.preventDefault();
    setOver(false);
    onFiles([...e.dataTransfer.files]);
  };
  return (
    <Paper
      withBorder
      p="lg"
      radius="md"
      style={{ borderStyle: 'dashed', background: over ? 'var(--mantine-color-blue-light)' : undefined }}
      onDragOver={(e) => {
        e.preventDefault();
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={drop}
    >
      <Stack align="center" gap="xs">
        <Text size="sm">{t('materials.dropHint')}</Text>
        <Button variant="light" onClick={() => input.current?.click()}>
          {label}
        </Button>
        <input
          ref={input}
          type="file"
          multiple
          hidden
          aria-label={label}
          onChange={(e) => {
            onFiles([...(e.currentTarget.files ?? [])]);
            e.currentTarget.value = '';
          }}
        />
      </Stack>
    </Paper>
  );
}

export function useUploads(url: string, onDone: () => void) {
  const [uploads, setUploads] = useState<Upload[]>([]);
  const seq = useRef(0);
  const start = (files: File[]) => {
    for (const file of files) {
      const id = ++seq.current;
      setUploads((u) => [...u, { id, name: file.name, progress: 0 }]);
      const form = new FormData();
      form.append('file', file, file.name);
      uploadWithProgress(url, form, (p) => setUploads((u) => u.map((x) => (x.id === id ? { ...x, progress: p } : x))))
        .then(() => {
          setUploads((u) => u.filter((x) => x.id !== id));
          onDone();
        })
        .catch((err: Error) => setUploads((u) => u.map((x) => (x.id === id ? { ...x, error: err.message } : x))));
    }
  };
  return { uploads, start, dismiss: (id: number) => setUploads((u) => u.filter((x) => x.id !== id)) };
}

export function UploadList({ uploads, dismiss }: { uploads: Upload[]; dismiss: (id: number) => void }) {
  const { t } = useTranslation();
  return (
    <Stack gap="xs">
      {uploads.map((u) => (
        <Group key={u.id} gap="sm" wrap="nowrap">
          <Text size="sm" w={220} truncate>
            {u.name}
          </Text>
          {u.error ? (
            <>
              <Text size="sm" c="var(--mantine-color-error)" role="alert">
                {u.error}
              </Text>
              <Button size="xs" variant="subtle" onClick={() => dismiss(u.id)}>
                {t('common.dismiss')}
              </Button>
            </>
          ) : (
            <Progress
              value={Math.round(u.progress * 100)}
              w={240}
              aria-label={t('materials.uploading', { name: u.name })}
              animated={u.progress < 1}
            />
          )}
        </Group>
      ))}
    </Stack>
  );
}

export function MaterialsTab({ projectId }: { projectId: string }) {
  const { t, i18n } = useTranslation();
  const can = usePermissions();
  const qc = useQueryClient();
  const materials = useMaterials(projectId);
  const refresh = () => {
    void qc.invalidateQueries({ queryKey: ['materials', projectId] });
    void qc.invalidateQueries({ queryKey: ['project', projectId] });
  };
  const { uploads, start, dismiss } = useUploads(`/api/v1/projects/${projectId}/files`, refresh);
  const [url, setUrl] = useState('');
  const [kbId, setKbId] = useState<string | null>(null);
  const kbs = useQuery({
    queryKey: ['knowledge-bases'],
    queryFn: async () => unwrap(await api.GET('/api/v1/knowledge-bases', { params: { query: { limit: 100 } } })),
    enabled: can.canWrite,
  });
  const addLink = useMutation({
    mutationFn: async (link: string) =>
      unwrap(
        await api.POST('/api/v1/projects/{id}/links', { params: { path: { id: projectId } }, body: { url: link } }),
      ),
    onSuccess: () => {
      setUrl('');
      refresh();
    },
  });
  const attach = useMutation({
    mutationFn: async (id: string) =>
      unwrap(
        await api.POST('/api/v1/projects/{id}/knowledge-bases', {
          params: { path: { id: projectId } },
          body: { knowledge_base_id: id },
        }),
      ),
    onSuccess: () => {
      setKbId(null);
      refresh();
    },
  });
  const retry = useMutation({
    mutationFn: async (materialId: string) =>
      unwrap(
        await api.POST('/api/v1/projects/{id}/materials/{material_id}/refresh', {
          params: { path: { id: projectId, material_id: materialId } },
        }),
      ),
    onSuccess: refresh,
  });
  const remove = useMutation({
    mutationFn: async (materialId: string) =>
      unwrap(
        await api.DELETE('/api/v1/projects/{id}/materials/{material_id}', {
          params: { path: { id: projectId, material_id: materialId } },
        }),
      ),
    onSuccess: refresh,
  });
  const list = (materials.data?.data ?? []) as Material[];
  const kbOptions = ((kbs.data?.data ?? []) as { id: string; name: string }[]).map((k) => ({
    value: k.id,
    label: k.name,
  }));

  return (
    <Stack>
      {can.canWrite && (
        <>
          <UploadZone label={t('materials.chooseFiles')} onFiles={start} />
          <UploadList uploads={uploads} dismiss={dismiss} />
          <Group align="flex-end">
            <form
              onSubmit={(e: FormEvent) => {
                e.preventDefault();
                addLink.mutate(url.trim());
              }}
              style={{ display: 'flex', gap: 8, alignItems: 'flex-end', flex: 1 }}
            >
              <TextInput
                style={{ flex: 1 }}
                label={t('materials.link')}
                type="url"
                placeholder="https://"
                value={url}
                onChange={(e) => setUrl(e.currentTarget.value)}
              />
              <Button type="submit" variant="light" loading={addLink.isPending} disabled={!url.trim()}>
                {t('materials.addLink')}
              </Button>
            </form>
            <Group gap={8} align="flex-end">
              <Select
                label={t('materials.knowledgeBase')}
                placeholder={kbOptions.length ? t('materials.pickKb') : t('materials.noKbs')}
                data={kbOptions}
                value={kbId}
                onChange={setKbId}
                w={220}
              />
              <Button
                variant="light"
                disabled={!kbId}
                loading={attach.isPending}
                onClick={() => kbId && attach.mutate(kbId)}
              >
                {t('materials.attach')}
              </Button>
            </Group>
          </Group>
          <ChatForm projectId={projectId} onAdded={refresh} />
          <MessengerImportForm projectId={projectId} onAdded={refresh} />
          <IntegrationForm projectId={projectId} onAdded={refresh} />
          <ErrorAlert error={addLink.error ?? attach.error ?? retry.error ?? remove.error} />
        </>
      )}
      <ErrorAlert error={materials.error} />
      <Group justify="flex-end">
        <Button size="xs" variant="subtle" onClick={refresh}>
          {t('common.refresh')}
        </Button>
      </Group>
      {materials.isPending ? (
        <LoadingRows />
      ) : list.length === 0 ? (
        <EmptyState title={t('materials.empty')} hint={t('materials.emptyHint')} />
      ) : (
        <Table.ScrollContainer minWidth={640}>
          <Table aria-label={t('materials.title')}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('materials.material')}</Table.Th>
                <Table.Th>{t('materials.kind')}</Table.Th>
                <Table.Th>{t('materials.status')}</Table.Th>
                <Table.Th>{t('usage.tokens')}</Table.Th>
                <Table.Th>{t('common.actions')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {list.map((m) => (
                <Table.Tr key={m.id}>
                  <Table.Td>{m.title ?? m.url ?? m.id}</Table.Td>
                  <Table.Td>{t(`kinds.${m.kind}`, { defaultValue: m.kind })}</Table.Td>
                  <Table.Td>
                    {m.status === 'failed' && m.last_error ? (
                      <Tooltip label={(m.last_error as { message?: string }).message ?? ''}>
                        <span>
                          <StatusBadge status={m.status} />
                        </span>
                      </Tooltip>
                    ) : (
                      <StatusBadge status={m.status} />
                    )}
                    {m.status === 'failed' && m.last_error && (
                      <Text size="xs" c="var(--mantine-color-error)">
                        {(m.last_error as { message?: string }).message}
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td>{formatNumber(m.tokens as number | null, i18n.language)}</Table.Td>
                  <Table.Td>
                    {can.canWrite && (
                      <Group gap={6}>
                        {(m.status === 'failed' || m.kind === 'link') && (
                          <Button size="xs" variant="light" onClick={() => retry.mutate(m.id)}>
                            {m.status === 'failed' ? t('materials.retry') : t('common.refresh')}
                          </Button>
                        )}
                        <ConfirmAction
                          label={t('common.delete')}
                          title={t('materials.deleteTitle')}
                          body={t('materials.deleteBody', { name: m.title ?? m.id })}
                          onConfirm={() => remove.mutateAsync(m.id).then(() => undefined)}
                        />
                      </Group>
                    )}
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
