import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  Alert,
  Badge,
  Button,
  FileInput,
  Group,
  Modal,
  Paper,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { api, ApiRequestError, unwrap } from '../../api/client';
import { uploadWithProgress } from '../../api/upload';
import type { components } from '../../api/schema';
import { EmptyState, LoadingRows } from '../../components/common';
import { formatRub } from '../../i18n';
import {
  DocumentError,
  RequisitesForm,
  requisitesBody,
  requisitesValues,
  type RequisitesField,
} from './requisites-form';
import { InvoicesTable, useInvoices } from './team-documents';

type Statement = components['schemas']['BankStatementDto'];
type Invoice = components['schemas']['InvoiceDto'];

const SELLER_FIELDS: RequisitesField[] = [
  { name: 'legal_name', required: true, wide: true },
  { name: 'inn', required: true },
  { name: 'kpp' },
  { name: 'ogrn', required: true },
  { name: 'vat_rate', kind: 'vat' },
  { name: 'address', required: true, wide: true },
  { name: 'bank_name', required: true, wide: true },
  { name: 'bik', required: true },
  { name: 'account', required: true },
  { name: 'corr_account', required: true },
  { name: 'signatory', required: true },
  { name: 'accountant' },
];

/** The operator's company, printed on every invoice and act. */
export function SellerPanel() {
  const { t } = useTranslation();
  const qc = useQueryClient();
  const seller = useQuery({
    queryKey: ['seller'],
    queryFn: async () => {
      try {
        return unwrap(await api.GET('/api/v1/admin/seller'));
      } catch (e) {
        if (e instanceof ApiRequestError && e.code === 'seller_requisites_missing') return null;
        throw e;
      }
    },
  });
  if (seller.isPending) return <LoadingRows rows={2} />;
  if (seller.error) return <DocumentError error={seller.error} />;
  return (
    <RequisitesForm
      testId="seller-requisites"
      title={t('documents.seller.title')}
      hint={seller.data ? t('documents.seller.hint') : t('documents.seller.missing')}
      fields={SELLER_FIELDS}
      initial={seller.data ? requisitesValues(SELLER_FIELDS, seller.data) : null}
      onSave={async (values) => {
        const body = requisitesBody(SELLER_FIELDS, values) as unknown as components['schemas']['SellerRequisitesDto'];
        qc.setQueryData(['seller'], unwrap(await api.PUT('/api/v1/admin/seller', { body })));
      }}
    />
  );
}

function StatementStatus({ status, reason }: { status: string; reason: string | null }) {
  const { t } = useTranslation();
  const color = status === 'credited' ? 'green' : status === 'already_credited' ? 'gray' : 'orange';
  return (
    <Stack gap={2}>
      <Badge color={color} variant="light">
        {t(`documents.statements.status.${status as 'credited'}`)}
      </Badge>
      {reason && (
        <Text size="xs" c="dimmed">
          {t(`documents.statements.reasons.${reason as 'unknown_invoice'}`, { defaultValue: reason })}
        </Text>
      )}
    </Stack>
  );
}

function StatementResult({ statement }: { statement: Statement }) {
  const { t, i18n } = useTranslation();
  return (
    <Stack gap="xs" data-testid="statement-result">
      <Alert color={statement.unmatched > 0 ? 'orange' : 'green'}>
        {t('documents.statements.result', {
          account: statement.account,
          credited: statement.credited,
          amount: formatRub(statement.credited_rub, i18n.language),
          unmatched: statement.unmatched,
        })}
      </Alert>
      <Table.ScrollContainer minWidth={760}>
        <Table striped aria-label={t('documents.statements.payments')}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t('documents.statements.number')}</Table.Th>
              <Table.Th>{t('documents.statements.date')}</Table.Th>
              <Table.Th>{t('documents.statements.payer')}</Table.Th>
              <Table.Th>{t('documents.statements.amount')}</Table.Th>
              <Table.Th>{t('documents.statements.purpose')}</Table.Th>
              <Table.Th>{t('documents.statements.outcome')}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {statement.payments.map((p, i) => (
              <Table.Tr key={`${p.number}-${p.date}-${i}`} data-testid={`statement-line-${p.number}`}>
                <Table.Td>{p.number}</Table.Td>
                <Table.Td style={{ whiteSpace: 'nowrap' }}>{p.date}</Table.Td>
                <Table.Td>
                  <Text size="sm">{p.payer_name}</Text>
                  <Text size="xs" c="dimmed">
                    {p.payer_inn}
                  </Text>
                </Table.Td>
                <Table.Td>{formatRub(p.amount_rub, i18n.language)}</Table.Td>
                <Table.Td>
                  <Text size="sm">{p.purpose}</Text>
                </Table.Td>
                <Table.Td>
                  <StatementStatus status={p.status} reason={p.reason} />
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Stack>
  );
}

/** Upload of the bank's 1C statement; the outcome of each payment is listed for the operator. */
export function StatementsPanel() {
  const { t } = useTranslation();
  const qc = useQueryClient();
  const [file, setFile] = useState<File | null>(null);
  const upload = useMutation({
    mutationFn: async (f: File) => {
      const form = new FormData();
      form.append('file', f);
      return uploadWithProgress<Statement>('/api/v1/admin/bank-statements', form, () => undefined);
    },
    onSuccess: () => {
      setFile(null);
      void qc.invalidateQueries({ queryKey: ['admin-teams'] });
      void qc.invalidateQueries({ queryKey: ['invoices'] });
    },
  });
  return (
    <Paper withBorder p="md" data-testid="bank-statements">
      <form
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          if (file) upload.mutate(file);
        }}
      >
        <Stack gap="sm">
          <Title order={2} size="h4">
            {t('documents.statements.title')}
          </Title>
          <Text size="sm" c="dimmed">
            {t('documents.statements.hint')}
          </Text>
          <Group align="flex-end">
            <FileInput
              label={t('documents.statements.file')}
              accept=".txt,text/plain"
              value={file}
              onChange={setFile}
              clearable
              w={320}
            />
            <Button type="submit" loading={upload.isPending} disabled={!file}>
              {t('documents.statements.upload')}
            </Button>
          </Group>
          <DocumentError error={upload.error} />
          {upload.data && <StatementResult statement={upload.data} />}
        </Stack>
      </form>
    </Paper>
  );
}

function MarkPaid({ invoice, teamId }: { invoice: Invoice; teamId: string }) {
  const { t, i18n } = useTranslation();
  const qc = useQueryClient();
  const [open, setOpen] = useState(false);
  const [reference, setReference] = useState('');
  const mark = useMutation({
    mutationFn: async () =>
      unwrap(
        await api.POST('/api/v1/admin/invoices/{id}/mark-paid', {
          params: { path: { id: invoice.id } },
          body: { reference: reference.trim() },
        }),
      ),
    onSuccess: () => {
      setOpen(false);
      void qc.invalidateQueries({ queryKey: ['invoices', teamId] });
      void qc.invalidateQueries({ queryKey: ['admin-team', teamId] });
      void qc.invalidateQueries({ queryKey: ['admin-teams'] });
    },
  });
  return (
    <>
      <Button
        size="xs"
        variant="light"
        onClick={() => setOpen(true)}
        aria-label={t('documents.markPaid.actionOf', { number: invoice.number })}
      >
        {t('documents.markPaid.action')}
      </Button>
      <Modal
        opened={open}
        onClose={() => setOpen(false)}
        title={t('documents.markPaid.dialog', { number: invoice.number })}
        closeButtonProps={{ 'aria-label': t('common.cancel') }}
      >
        <form
          onSubmit={(e: FormEvent) => {
            e.preventDefault();
            mark.mutate();
          }}
        >
          <Stack gap="sm">
            <Text size="sm">
              {t('documents.markPaid.body', { amount: formatRub(invoice.amount_rub, i18n.language) })}
            </Text>
            <TextInput
              label={t('documents.markPaid.reference')}
              required
              value={reference}
              onChange={(e) => setReference(e.currentTarget.value)}
            />
            <DocumentError error={mark.error} />
            <Group justify="flex-end">
              <Button variant="default" onClick={() => setOpen(false)}>
                {t('common.cancel')}
              </Button>
              <Button type="submit" loading={mark.isPending} disabled={!reference.trim()}>
                {t('documents.markPaid.action')}
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
    </>
  );
}

/** A team's invoices in the operator area: download, and record a payment by hand. */
export function TeamInvoicesPanel({ teamId }: { teamId: string }) {
  const { t } = useTranslation();
  const list = useInvoices(teamId);
  const rows = list.data?.data ?? [];
  return (
    <Stack gap="xs">
      <Title order={3} size="h5">
        {t('documents.markPaid.title')}
      </Title>
      {list.isPending ? (
        <LoadingRows rows={1} />
      ) : list.error ? (
        <DocumentError error={list.error} />
      ) : rows.length === 0 ? (
        <EmptyState title={t('documents.invoices.empty')} hint={t('documents.invoices.emptyHint')} />
      ) : (
        <InvoicesTable
          rows={rows}
          label={t('documents.markPaid.title')}
          action={(inv) => inv.status !== 'paid' && <MarkPaid invoice={inv} teamId={teamId} />}
        />
      )}
    </Stack>
  );
}
