import { useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Button, Group, Modal, NumberInput, Select, Stack, Textarea, TextInput } from '@mantine/core';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { ErrorAlert } from '../../components/common';
import { headersBody, HeadersEditor, missingName, newHeaderRow, storedRows, type HeaderRow } from './headers-editor';
import { SERVER_NAME, type McpServer, type McpTransport } from './mcp-queries';

interface Draft {
  name: string;
  url: string;
  transport: McpTransport;
  description: string;
  price: number | string;
  headers: HeaderRow[];
}

const blank = (): Draft => ({
  name: '',
  url: '',
  transport: 'streamable_http',
  description: '',
  price: 0,
  headers: [newHeaderRow()],
});

const fromServer = (s: McpServer): Draft => ({
  name: s.name,
  url: s.url,
  transport: s.transport as McpTransport,
  description: (s.description as string | null) ?? '',
  price: s.price_per_call_rub,
  headers: storedRows(s.header_names),
});

/**
 * Registers a server (`server` absent) or edits one: name, URL, transport, description, price per
 * call and the secret headers (write-only values). An edit sends only what changed.
 */
export function ServerFormModal({
  teamId,
  server,
  opened,
  onClose,
  onSaved,
}: {
  teamId: string;
  server: McpServer | null;
  opened: boolean;
  onClose: () => void;
  onSaved?: (s: McpServer) => void;
}) {
  const { t } = useTranslation();
  const qc = useQueryClient();
  const [d, setD] = useState<Draft>(blank);
  useEffect(() => {
    if (opened) setD(server ? fromServer(server) : blank());
  }, [opened, server]);
  const set = <K extends keyof Draft>(k: K, v: Draft[K]) => setD((o) => ({ ...o, [k]: v }));
  const save = useMutation({
    mutationFn: async (): Promise<McpServer> => {
      const price = typeof d.price === 'number' ? d.price : 0;
      const headers = headersBody(d.headers, !!server);
      if (!server)
        return unwrap(
          await api.POST('/api/v1/teams/{team_id}/mcp-servers', {
            params: { path: { team_id: teamId } },
            body: {
              name: d.name.trim(),
              url: d.url.trim(),
              transport: d.transport,
              ...(d.description.trim() ? { description: d.description.trim() } : {}),
              price_per_call_rub: price,
              ...(headers ? { headers: headers as Record<string, string> } : {}),
            },
          }),
        );
      const body: components['schemas']['UpdateMcpServerDto'] = {};
      if (d.name.trim() !== server.name) body.name = d.name.trim();
      if (d.url.trim() !== server.url) body.url = d.url.trim();
      if (d.transport !== server.transport) body.transport = d.transport;
      if (d.description.trim() !== ((server.description as string | null) ?? ''))
        body.description = d.description.trim() || null;
      if (price !== server.price_per_call_rub) body.price_per_call_rub = price;
      if (headers) body.headers = headers as components['schemas']['UpdateMcpServerDto']['headers'];
      return unwrap(
        await api.PATCH('/api/v1/teams/{team_id}/mcp-servers/{id}', {
          params: { path: { team_id: teamId, id: server.id } },
          body,
        }),
      );
    },
    onSuccess: (s) => {
      void qc.invalidateQueries({ queryKey: ['mcp-servers'] });
      void qc.invalidateQueries({ queryKey: ['mcp-tools'] });
      onSaved?.(s);
      onClose();
    },
  });
  const nameBad = d.name.trim() !== '' && !SERVER_NAME.test(d.name.trim());
  const headersBad = d.headers.some(
    (r) => missingName(r) || (r.kind === 'stored' && r.state === 'replace' && r.value === ''),
  );
  const ready = SERVER_NAME.test(d.name.trim()) && d.url.trim() !== '' && !headersBad;
  return (
    <Modal
      opened={opened}
      onClose={onClose}
      size="lg"
      title={server ? t('mcp.form.editTitle', { name: server.name }) : t('mcp.form.addTitle')}
    >
      <form
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          if (ready) save.mutate();
        }}
        data-testid="mcp-server-form"
      >
        <Stack>
          <TextInput
            label={t('mcp.name')}
            description={t('mcp.form.nameHint')}
            required
            maxLength={64}
            value={d.name}
            error={nameBad ? t('mcp.form.invalidName') : undefined}
            onChange={(e) => set('name', e.currentTarget.value)}
          />
          <TextInput
            label={t('mcp.url')}
            description={t('mcp.form.urlHint')}
            required
            type="url"
            maxLength={2048}
            value={d.url}
            onChange={(e) => set('url', e.currentTarget.value)}
          />
          <Select
            label={t('mcp.transport')}
            allowDeselect={false}
            value={d.transport}
            onChange={(v) => set('transport', (v ?? 'streamable_http') as McpTransport)}
            data={(['streamable_http', 'sse'] as const).map((v) => ({ value: v, label: t(`mcp.transports.${v}`) }))}
          />
          <Textarea
            label={t('mcp.description')}
            autosize
            minRows={2}
            maxLength={2000}
            value={d.description}
            onChange={(e) => set('description', e.currentTarget.value)}
          />
          <NumberInput
            label={`${t('mcp.price')}, ₽`}
            description={t('mcp.form.priceHint')}
            min={0}
            max={1_000_000}
            decimalScale={6}
            value={d.price}
            onChange={(v) => set('price', v)}
          />
          <HeadersEditor rows={d.headers} onChange={(rows) => set('headers', rows)} />
          <ErrorAlert error={save.error} />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              {t('common.cancel')}
            </Button>
            <Button type="submit" loading={save.isPending} disabled={!ready}>
              {server ? t('mcp.form.save') : t('mcp.form.create')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
