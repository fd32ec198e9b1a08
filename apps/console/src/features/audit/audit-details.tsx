import { useTranslation } from 'react-i18next';
import { Text } from '@mantine/core';
import type { components } from '../../api/schema';
import { formatRub } from '../../i18n';
import { useAuditLabels } from '../../i18n/audit-labels';

type AuditEntry = components['schemas']['AuditEntryDto'];

/** The readable details of a record: amount in RUB, e-mail, role (before → after), name, note… */
export function AuditDetails({ e }: { e: AuditEntry }) {
  const { t, i18n } = useTranslation();
  const labels = useAuditLabels();
  const d = e.details;
  const role = (r: string) => (i18n.exists(`roles.${r}`) ? t(`roles.${r}`) : r);
  const lines: [label: string, value: string, data?: boolean][] = [];
  if (d.amount_rub !== null) lines.push([t('audit.amount'), formatRub(d.amount_rub, i18n.language)]);
  if (d.balance_rub !== null && e.action === 'team.top_up')
    lines.push([t('audit.balanceAfter'), formatRub(d.balance_rub, i18n.language)]);
  // the e-mail is already the target's label for invitations and member changes
  if (d.email && d.email !== e.target?.label) lines.push([t('audit.email'), d.email, true]);
  if (d.role || d.previous_role)
    lines.push([
      t('audit.role'),
      d.role && d.previous_role
        ? t('audit.roleChange', { from: role(d.previous_role), to: role(d.role) })
        : role(d.role ?? d.previous_role ?? ''),
    ]);
  if (d.name && d.name !== e.target?.label) lines.push([t('audit.name'), d.name, true]);
  if (d.note) lines.push([t('audit.note'), d.note, true]);
  if (d.reference) lines.push([t('audit.reference'), d.reference, true]);
  if (d.reason) lines.push([t('audit.reason'), labels.reason(d.reason)]);
  if (lines.length === 0) return <>—</>;
  return (
    <>
      {lines.map(([k, v, data]) => (
        <Text size="sm" key={k}>
          <Text span c="dimmed" size="sm">
            {k}:
          </Text>{' '}
          {/* what a person typed (a note, a name) is shown as written, never translated */}
          {data ? <span translate="no">{v}</span> : v}
        </Text>
      ))}
    </>
  );
}
