import { useTranslation } from 'react-i18next';
import { Table } from '@mantine/core';
import { formatNumber, formatRub } from '../../i18n';

export interface ModelSpend {
  model: string | null;
  requests: number;
  total_tokens: number;
  amount_rub: number;
}

/** Calls, tokens and RUB per model. */
export function ModelSpendTable({ rows, label }: { rows: ModelSpend[]; label: string }) {
  const { t, i18n } = useTranslation();
  const lang = i18n.language;
  return (
    <Table.ScrollContainer minWidth={360}>
      <Table aria-label={label}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t('usage.model')}</Table.Th>
            <Table.Th>{t('operator.requests')}</Table.Th>
            <Table.Th>{t('operator.tokens')}</Table.Th>
            <Table.Th>{t('operator.spend')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((m) => (
            <Table.Tr key={m.model ?? '—'}>
              <Table.Td>{m.model ?? '—'}</Table.Td>
              <Table.Td>{formatNumber(m.requests, lang)}</Table.Td>
              <Table.Td>{formatNumber(m.total_tokens, lang)}</Table.Td>
              <Table.Td>{formatRub(m.amount_rub, lang)}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
