import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  Button,
  Group,
  Modal,
  NumberInput,
  Paper,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
  UnstyledButton,
} from '@mantine/core';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { usePermissions } from '../../auth/auth-context';
import { ConfirmAction, EmptyState, ErrorAlert, LoadingRows, PageHeader } from '../../components/common';
import { formatDate, formatNumber } from '../../i18n';
import { StatusBadge, UploadList, UploadZone, useUploads } from '../projects/materials-tab';

type KnowledgeBase = components['schemas']['KnowledgeBaseDto'];
type KbDocument = components['schemas']['KbDocumentDto'];
type SearchResult = components['schemas']['KbSearchResultDto'];

export function SearchTester({ kbId }: { kbId: string }) {
  const { t } = useTranslation();
  const [query, setQuery] = useState('');
  const [topK, setTopK] = useState<number | string>(5);
  const search = useMutation({
    mutationFn: async () =>
      unwrap(
        await api.POST('/api/v1/knowledge-bases/{id}/search', {
          params: { path: { id: kbId } },
          body: { query: query.trim(), top_k: Number(topK) || 5 },
        }),
      ),
  });
  const results = (search.data?.results ?? []) as SearchResult[];
  return (
    <Stack>
      <form
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          search.mutate();
        }}
      >
        <Group align="flex-end">
          <TextInput
            label={t('kb.query')}
            style={{ flex: 1 }}
            value={query}
            onChange={(e) => setQuery(e.currentTarget.value)}
          />
          <NumberInput label={t('kb.topK')} min={1} max={50} w={100} value={topK} onChange={setTopK} />
          <Button type="submit" loading={search.isPending} disabled={!query.trim()}>
            {t('kb.search')}
          </Button>
        </Group>
      </form>
      <ErrorAlert error={search.error} />
      {search.isSuccess && results.length === 0 && <Text c="dimmed">{t('kb.noResults')}</Text>}
      {results.length > 0 && (
        <Table.ScrollContainer minWidth={640}>
          <Table aria-label={t('kb.results')}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>#</Table.Th>
                <Table.Th>{t('kb.score')}</Table.Th>
                <Table.Th>{t('kb.document')}</Table.Th>
                <Table.Th>{t('kb.chunk')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {results.map((r) => (
                <Table.Tr key={r.id}>
                  <Table.Td>{r.rank}</Table.Td>
                  <Table.Td>{r.similarity_score.toFixed(3)}</Table.Td>
                  <Table.Td>
                    {r.source.title}
                    {r.source.page ? ` · ${t('playground.page', { page: r.source.page })}` : ''}
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm" lineClamp={3}>
                      {r.data}
                    </Text>
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

function KnowledgeBaseDetail({ kb }: { kb: KnowledgeBase }) {
  const { t, i18n } = useTranslation();
  const can = usePermissions();
  const qc = useQueryClient();
  const docs = useQuery({
    queryKey: ['kb-docs', kb.id],
    queryFn: async () =>
      unwrap(await api.GET('/api/v1/knowledge-bases/{id}/documents', { params: { path: { id: kb.id } } })),
    refetchInterval: (q) =>
      ((q.state.data?.data ?? []) as KbDocument[]).some((d) => d.status === 'queued' || d.status === 'in_progress')
        ? 2000
        : false,
  });
  const refresh = () => {
    void qc.invalidateQueries({ queryKey: ['kb-docs', kb.id] });
    void qc.invalidateQueries({ queryKey: ['knowledge-bases'] });
  };
  const { uploads, start, dismiss } = useUploads(`/api/v1/knowledge-bases/${kb.id}/documents`, refresh);
  const remove = useMutation({
    mutationFn: async (docId: string) =>
      unwrap(
        await api.DELETE('/api/v1/knowledge-bases/{id}/documents/{doc_id}', {
          params: { path: { id: kb.id, doc_id: docId } },
        }),
      ),
    onSuccess: refresh,
  });
  const list = (docs.data?.data ?? []) as KbDocument[];
  return (
    <Paper withBorder p="md" radius="md">
      <Stack>
        <Title order={2} size="h4">
          {kb.name}
        </Title>
        <Text size="sm" c="dimmed">
          {kb.embedding_model} ·{' '}
          {t('kb.chunkCount', { count: kb.chunk_count, n: formatNumber(kb.chunk_count, i18n.language) })}
        </Text>
        {can.canWrite && (
          <>
            <UploadZone label={t('materials.chooseFiles')} onFiles={start} />
            <UploadList uploads={uploads} dismiss={dismiss} />
          </>
        )}
        <ErrorAlert error={docs.error ?? remove.error} />
        {docs.isPending ? (
          <LoadingRows />
        ) : list.length === 0 ? (
          <EmptyState title={t('kb.noDocs')} hint={t('kb.noDocsHint')} />
        ) : (
          <Table.ScrollContainer minWidth={640}>
            <Table aria-label={t('kb.documents')}>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{t('kb.document')}</Table.Th>
                  <Table.Th>{t('materials.status')}</Table.Th>
                  <Table.Th>{t('kb.chunksCol')}</Table.Th>
                  <Table.Th>{t('common.created')}</Table.Th>
                  <Table.Th>{t('common.actions')}</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {list.map((d) => (
                  <Table.Tr key={d.id}>
                    <Table.Td>{d.title || d.filename || d.url}</Table.Td>
                    <Table.Td>
                      <StatusBadge status={d.status} />
                      {d.last_error && (
                        <Text size="xs" c="var(--mantine-color-error)">
                          {(d.last_error as { message?: string }).message}
                        </Text>
                      )}
                    </Table.Td>
                    <Table.Td>{formatNumber(d.chunks, i18n.language)}</Table.Td>
                    <Table.Td>{formatDate(d.created_at, i18n.language)}</Table.Td>
                    <Table.Td>
                      {can.canWrite && (
                        <ConfirmAction
                          label={t('common.delete')}
                          title={t('kb.deleteDocTitle')}
                          body={t('materials.deleteBody', { name: d.title || d.filename })}
                          onConfirm={() => remove.mutateAsync(d.id).then(() => undefined)}
                        />
                      )}
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
        <Title order={3} size="h5">
          {t('kb.searchTester')}
        </Title>
        <SearchTester kbId={kb.id} />
      </Stack>
    </Paper>
  );
}

export function KnowledgeBasesPage() {
  const { t, i18n } = useTranslation();
  const can = usePermissions();
  const qc = useQueryClient();
  const [selected, setSelected] = useState<string | null>(null);
  const [open, setOpen] = useState(false);
  const [name, setName] = useState('');
  const kbs = useQuery({
    queryKey: ['knowledge-bases'],
    queryFn: async () => unwrap(await api.GET('/api/v1/knowledge-bases', { params: { query: { limit: 100 } } })),
    // a knowledge base still ingesting is read again, so its status and chunk count follow its documents
    refetchInterval: (q) =>
      ((q.state.data?.data ?? []) as KnowledgeBase[]).some((kb) => kb.status === 'in_progress') ? 2000 : false,
  });
  const create = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/v1/knowledge-bases', { body: { name: name.trim() } })),
    onSuccess: (kb) => {
      setOpen(false);
      setName('');
      setSelected(kb.id);
      void qc.invalidateQueries({ queryKey: ['knowledge-bases'] });
    },
  });
  const list = (kbs.data?.data ?? []) as KnowledgeBase[];
  const current = list.find((k) => k.id === selected);
  const createButton = can.canWrite && <Button onClick={() => setOpen(true)}>{t('kb.new')}</Button>;
  return (
    <Stack>
      <PageHeader title={t('kb.title')} description={t('kb.subtitle')} actions={createButton} />
      <ErrorAlert error={kbs.error} />
      {kbs.isPending ? (
        <LoadingRows />
      ) : list.length === 0 ? (
        <EmptyState title={t('kb.empty')} hint={t('kb.emptyHint')} action={createButton} />
      ) : (
        <Table.ScrollContainer minWidth={640}>
          <Table highlightOnHover aria-label={t('kb.title')}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('projects.name')}</Table.Th>
                <Table.Th>{t('kb.documents')}</Table.Th>
                <Table.Th>{t('materials.status')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {list.map((kb) => (
                <Table.Tr key={kb.id}>
                  <Table.Td>
                    <UnstyledButton onClick={() => setSelected(kb.id)}>
                      <Text c="var(--mantine-color-blue-light-color)">{kb.name}</Text>
                    </UnstyledButton>
                  </Table.Td>
                  <Table.Td>{formatNumber(kb.document_count, i18n.language)}</Table.Td>
                  <Table.Td>
                    <StatusBadge status={kb.status} />
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {current && <KnowledgeBaseDetail kb={current} />}
      <Modal opened={open} onClose={() => setOpen(false)} title={t('kb.new')}>
        <form
          onSubmit={(e: FormEvent) => {
            e.preventDefault();
            create.mutate();
          }}
        >
          <Stack>
            <ErrorAlert error={create.error} />
            <TextInput
              label={t('projects.name')}
              required
              value={name}
              onChange={(e) => setName(e.currentTarget.value)}
            />
            <Button type="submit" loading={create.isPending} disabled={!name.trim()}>
              {t('kb.create')}
            </Button>
          </Stack>
        </form>
      </Modal>
    </Stack>
  );
}
