import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from '@mantine/core';
import { downloadFile } from '../../api/download';
import type { AuditFilters } from './audit-page';

/** Downloads every record matching the page's filters as CSV (the server streams it). */
export function AuditExportButton({ filters, onError }: { filters: AuditFilters; onError: (e: unknown) => void }) {
  const { t } = useTranslation();
  const [busy, setBusy] = useState(false);
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(filters)) if (v !== undefined && v !== null) query.set(k, String(v));
  const download = async () => {
    setBusy(true);
    onError(null);
    try {
      await downloadFile(`/api/v1/audit-log/export.csv?${query.toString()}`, 'audit-log.csv');
    } catch (err) {
      onError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Button variant="default" loading={busy} onClick={() => void download()}>
      {t('audit.exportCsv')}
    </Button>
  );
}
