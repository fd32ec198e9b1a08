import { useState, type FormEvent, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation, useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Badge, Button, Group, NumberInput, Paper, Stack, Table, Text, Title } from '@mantine/core';
import { api, ApiRequestError, unwrap } from '../../api/client';
import { downloadFile } from '../../api/download';
import type { components } from '../../api/schema';
import { EmptyState, LoadingRows } from '../../components/common';
import { formatDate, formatRub } from '../../i18n';
import {
  DocumentError,
  RequisitesForm,
  requisitesBody,
  requisitesValues,
  type RequisitesField,
} from './requisites-form';

type Invoice = components['schemas']['InvoiceDto'];
type Act = components['schemas']['ActDto'];

export const TEAM_FIELDS: RequisitesField[] = [
  { name: 'legal_name', required: true, wide: true },
  { name: 'inn', required: true },
  { name: 'kpp' },
  { name: 'address', required: true, wide: true },
  { name: 'email_for_documents', kind: 'email' },
];

/** A document's PDF, fetched with the current credential and saved by the browser. */
export function DownloadButton({ url, name }: { url: string; name: string }) {
  const { t } = useTranslation();
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  return (
    <Stack gap={4}>
      <Button
        size="xs"
        variant="light"
        loading={busy}
        aria-label={t('documents.invoices.download', { name })}
        onClick={async () => {
          setBusy(true);
          setError(null);
          try {
            await downloadFile(url, `${name}.pdf`);
          } catch (e) {
            setError(e);
          } finally {
            setBusy(false);
          }
        }}
      >
        {t('documents.invoices.pdf')}
      </Button>
      <DocumentError error={error} />
    </Stack>
  );
}

export function InvoiceStatus({ status }: { status: string }) {
  const { t } = useTranslation();
  return (
    <Badge color={status === 'paid' ? 'green' : 'yellow'} variant="light" tt="none">
      {t(`documents.invoices.statuses.${status as 'paid'}`)}
    </Badge>
  );
}

/** Invoices with their status and PDF; `action` adds a control per invoice (the operator's "Mark paid"). */
export function InvoicesTable({
  rows,
  label,
  action,
}: {
  rows: Invoice[];
  label: string;
  action?: (invoice: Invoice) => ReactNode;
}) {
  const { t, i18n } = useTranslation();
  return (
    <Table.ScrollContainer minWidth={640}>
      <Table striped aria-label={label}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t('documents.invoices.number')}</Table.Th>
            <Table.Th>{t('documents.invoices.date')}</Table.Th>
            <Table.Th>{t('documents.invoices.sum')}</Table.Th>
            <Table.Th>{t('documents.invoices.vat')}</Table.Th>
            <Table.Th>{t('documents.invoices.status')}</Table.Th>
            <Table.Th>{t('documents.invoices.paidAt')}</Table.Th>
            <Table.Th>{t('documents.invoices.pdf')}</Table.Th>
            {action && <Table.Th>{t('common.actions')}</Table.Th>}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((inv) => (
            <Table.Tr key={inv.id} data-testid={`invoice-${inv.number}`}>
              <Table.Td>{inv.number}</Table.Td>
              <Table.Td>{formatDate(inv.issued_at, i18n.language)}</Table.Td>
              <Table.Td>{formatRub(inv.amount_rub, i18n.language)}</Table.Td>
              <Table.Td>
                {inv.vat_rate === 'none' ? t('documents.requisites.vat.none') : formatRub(inv.vat_rub, i18n.language)}
              </Table.Td>
              <Table.Td>
                <InvoiceStatus status={inv.status} />
              </Table.Td>
              <Table.Td>{formatDate(inv.paid_at, i18n.language)}</Table.Td>
              <Table.Td>
                <DownloadButton url={inv.pdf_url} name={inv.number} />
              </Table.Td>
              {action && <Table.Td>{action(inv)}</Table.Td>}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

/** A team's invoices, newest first (shared by the Billing page and the operator's team panel). */
export function useInvoices(teamId: string) {
  return useQuery({
    queryKey: ['invoices', teamId],
    queryFn: async () =>
      unwrap(await api.GET('/api/v1/teams/{team_id}/invoices', { params: { path: { team_id: teamId } } })),
  });
}

function useRequisites(teamId: string) {
  return useQuery({
    queryKey: ['requisites', teamId],
    queryFn: async () => {
      try {
        return unwrap(await api.GET('/api/v1/teams/{team_id}/requisites', { params: { path: { team_id: teamId } } }));
      } catch (e) {
        if (e instanceof ApiRequestError && e.code === 'requisites_missing') return null;
        throw e;
      }
    },
  });
}

function TeamRequisites({ teamId, canEdit }: { teamId: string; canEdit: boolean }) {
  const { t } = useTranslation();
  const qc = useQueryClient();
  const requisites = useRequisites(teamId);
  if (requisites.isPending) return <LoadingRows rows={2} />;
  if (requisites.error) return <DocumentError error={requisites.error} />;
  return (
    <RequisitesForm
      testId="team-requisites"
      title={t('documents.requisites.title')}
      hint={requisites.data ? t('documents.requisites.hint') : t('documents.requisites.missing')}
      fields={TEAM_FIELDS}
      initial={requisites.data ? requisitesValues(TEAM_FIELDS, requisites.data) : null}
      readOnly={!canEdit}
      onSave={async (values) => {
        const body = requisitesBody(TEAM_FIELDS, values) as unknown as components['schemas']['TeamRequisitesDto'];
        const saved = unwrap(
          await api.PUT('/api/v1/teams/{team_id}/requisites', { params: { path: { team_id: teamId } }, body }),
        );
        qc.setQueryData(['requisites', teamId], saved);
      }}
    />
  );
}

function IssueInvoice({ teamId }: { teamId: string }) {
  const { t } = useTranslation();
  const qc = useQueryClient();
  const [amount, setAmount] = useState<number | string>('');
  const issue = useMutation({
    mutationFn: async () =>
      unwrap(
        await api.POST('/api/v1/teams/{team_id}/invoices', {
          params: { path: { team_id: teamId } },
          body: { amount_rub: Number(amount) },
        }),
      ),
    onSuccess: () => {
      setAmount('');
      void qc.invalidateQueries({ queryKey: ['invoices', teamId] });
    },
  });
  return (
    <form
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        issue.mutate();
      }}
    >
      <Stack gap="xs">
        <Group align="flex-end">
          <NumberInput
            label={t('documents.invoices.amount')}
            min={0.01}
            decimalScale={2}
            value={amount}
            onChange={setAmount}
            w={240}
          />
          <Button type="submit" loading={issue.isPending} disabled={!(Number(amount) > 0)}>
            {t('documents.invoices.issue')}
          </Button>
        </Group>
        {issue.data && (
          <Alert color="green" data-testid="invoice-issued">
            {t('documents.invoices.issued', { number: issue.data.number })}
          </Alert>
        )}
        <DocumentError error={issue.error} />
      </Stack>
    </form>
  );
}

function Invoices({ teamId, canIssue }: { teamId: string; canIssue: boolean }) {
  const { t } = useTranslation();
  const list = useInvoices(teamId);
  const rows: Invoice[] = list.data?.data ?? [];
  return (
    <Paper withBorder p="md">
      <Stack gap="sm">
        <Title order={2} size="h4">
          {t('documents.invoices.title')}
        </Title>
        {canIssue && <IssueInvoice teamId={teamId} />}
        {list.isPending ? (
          <LoadingRows rows={2} />
        ) : list.error ? (
          <DocumentError error={list.error} />
        ) : rows.length === 0 ? (
          <EmptyState title={t('documents.invoices.empty')} hint={t('documents.invoices.emptyHint')} />
        ) : (
          <InvoicesTable rows={rows} label={t('documents.invoices.title')} />
        )}
      </Stack>
    </Paper>
  );
}

/** The last `count` months up to the current one (the browser's calendar), newest first, as YYYY-MM. */
export function recentMonths(count: number, now = new Date()): string[] {
  return Array.from({ length: count }, (_, i) => {
    const d = new Date(now.getFullYear(), now.getMonth() - i, 1);
    return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}`;
  });
}

/** A month's act; null when the browser's month is ahead of the server's calendar (a few hours a month). */
async function fetchAct(teamId: string, month: string): Promise<Act | null> {
  try {
    return unwrap(
      await api.GET('/api/v1/teams/{team_id}/acts', { params: { path: { team_id: teamId }, query: { month } } }),
    );
  } catch (e) {
    if (e instanceof ApiRequestError && e.code === 'month_in_future') return null;
    throw e;
  }
}

function monthName(month: string, lang: string): string {
  const [y, m] = month.split('-').map(Number);
  return new Intl.DateTimeFormat(lang === 'ru' ? 'ru-RU' : 'en-GB', { month: 'long', year: 'numeric' }).format(
    new Date(y, m - 1, 1),
  );
}

function Acts({ teamId }: { teamId: string }) {
  const { t, i18n } = useTranslation();
  const [count, setCount] = useState(3);
  const months = recentMonths(count);
  const acts = useQueries({
    queries: months.map((month) => ({
      queryKey: ['act', teamId, month],
      queryFn: async () => fetchAct(teamId, month),
    })),
  });
  const failed = acts.find((a) => a.error)?.error;
  return (
    <Paper withBorder p="md">
      <Stack gap="sm">
        <Title order={2} size="h4">
          {t('documents.acts.title')}
        </Title>
        {failed ? (
          <DocumentError error={failed} />
        ) : (
          <Table.ScrollContainer minWidth={560}>
            <Table striped aria-label={t('documents.acts.title')}>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{t('documents.acts.month')}</Table.Th>
                  <Table.Th>{t('documents.acts.kind')}</Table.Th>
                  <Table.Th>{t('documents.acts.sum')}</Table.Th>
                  <Table.Th>{t('documents.acts.vat')}</Table.Th>
                  <Table.Th>{t('documents.invoices.pdf')}</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {months.map((month, i) => {
                  const act = acts[i].data;
                  if (acts[i].isPending)
                    return (
                      <Table.Tr key={month}>
                        <Table.Td colSpan={5}>
                          <LoadingRows rows={1} />
                        </Table.Td>
                      </Table.Tr>
                    );
                  if (!act) return null;
                  return (
                    <Table.Tr key={month} data-testid={`act-${month}`}>
                      <Table.Td>{monthName(month, i18n.language)}</Table.Td>
                      <Table.Td>
                        <Badge color={act.final ? 'green' : 'gray'} variant="light">
                          {act.final ? t('documents.acts.final') : t('documents.acts.preliminary')}
                        </Badge>
                      </Table.Td>
                      <Table.Td>{formatRub(act.amount_rub, i18n.language)}</Table.Td>
                      <Table.Td>
                        {act.vat_rate === 'none'
                          ? t('documents.requisites.vat.none')
                          : formatRub(act.vat_rub, i18n.language)}
                      </Table.Td>
                      <Table.Td>
                        <DownloadButton url={act.pdf_url} name={act.number} />
                      </Table.Td>
                    </Table.Tr>
                  );
                })}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
        {count < 12 && (
          <Group>
            <Button variant="default" size="xs" onClick={() => setCount(count + 3)}>
              {t('documents.acts.earlier')}
            </Button>
          </Group>
        )}
      </Stack>
    </Paper>
  );
}

/**
 * Paying by bank transfer: the team's company requisites (owner/admin edit them), invoices to pay
 * (issued by owner/admin, downloadable by everyone) and the monthly acts, preliminary for the open
 * month and final once it is closed.
 */
export function TeamDocuments({ teamId, canManage }: { teamId: string; canManage: boolean }) {
  const { t } = useTranslation();
  const month = recentMonths(1)[0];
  // the current month's act tells whether the operator has set up documents (the seller's requisites)
  const probe = useQuery({
    queryKey: ['act', teamId, month],
    queryFn: async () => fetchAct(teamId, month),
  });
  if (probe.error instanceof ApiRequestError && probe.error.code === 'seller_requisites_missing')
    return (
      <Text size="sm" c="dimmed" data-testid="documents-unavailable">
        {t('documents.unavailable')}
      </Text>
    );
  if (probe.isPending) return <LoadingRows rows={2} />;
  return (
    <>
      <TeamRequisites teamId={teamId} canEdit={canManage} />
      <Invoices teamId={teamId} canIssue={canManage} />
      <Acts teamId={teamId} />
    </>
  );
}
