import { useTranslation } from 'react-i18next';
import { useQuery } from '@tanstack/react-query';
import { Code, Paper, Progress, Table, Text, Title } from '@mantine/core';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { useAuth } from '../../auth/auth-context';
import { ErrorAlert, LoadingRows } from '../../components/common';
import { formatRub } from '../../i18n';

type ApiKey = components['schemas']['ApiKeyDto'];

/** Share of a RUB cap already spent, 0–100 (a cap of 0 counts as used up). */
export function budgetPercent(spent: number, cap: number): number {
  if (cap <= 0) return 100;
  return Math.min(100, Math.round((spent / cap) * 1000) / 10);
}

function Use({ spent, cap, label, lang }: { spent: number; cap: number | null; label: string; lang: string }) {
  const { t } = useTranslation();
  if (cap === null)
    return (
      <Text size="sm" c="dimmed">
        {t('overview.noCap')}
      </Text>
    );
  const pct = budgetPercent(spent, cap);
  return (
    <>
      <Text size="sm">{t('overview.budgetOf', { spent: formatRub(spent, lang), cap: formatRub(cap, lang), pct })}</Text>
      <Progress value={pct} color={pct >= 90 ? 'red' : pct >= 70 ? 'yellow' : 'teal'} aria-label={label} size="sm" />
    </>
  );
}

/**
 * Budget use of the team's keys: RUB spent today and this month (UTC) against each key's daily and
 * monthly caps, from the keys listing. Keys without any cap are left out; the team itself has no
 * budget beyond its balance.
 */
export function BudgetUse() {
  const { t, i18n } = useTranslation();
  const auth = useAuth();
  const team_id = auth.teamId ?? '';
  const session = auth.mode === 'session' && !!team_id;
  const keys = useQuery({
    queryKey: ['keys', team_id],
    queryFn: async () => unwrap(await api.GET('/api/v1/teams/{team_id}/api-keys', { params: { path: { team_id } } })),
    enabled: session,
    // spend moves with every request: opening the overview always reads it afresh
    staleTime: 0,
  });
  if (!session) return null;
  const capped = ((keys.data?.data ?? []) as ApiKey[]).filter(
    (k) => !k.revoked && (k.budget_rub_per_day !== null || k.budget_rub_per_month !== null),
  );
  const lang = i18n.language;
  return (
    <Paper withBorder p="md" radius="md">
      <Title order={2} size="h4" mb="sm">
        {t('overview.budgetUse')}
      </Title>
      <ErrorAlert error={keys.error} />
      {keys.isPending ? (
        <LoadingRows rows={2} />
      ) : capped.length === 0 ? (
        <Text c="dimmed" size="sm">
          {t('overview.noBudgets')}
        </Text>
      ) : (
        <Table.ScrollContainer minWidth={640}>
          <Table aria-label={t('overview.budgetUse')}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('usage.key')}</Table.Th>
                <Table.Th>{t('overview.budgetDay')}</Table.Th>
                <Table.Th>{t('overview.budgetMonth')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {capped.map((k) => {
                const name = (k.name as string | null) ?? `${k.prefix}…`;
                return (
                  <Table.Tr key={k.id}>
                    <Table.Td>
                      {(k.name as string | null) ?? ''} <Code>{k.prefix}…</Code>
                    </Table.Td>
                    <Table.Td>
                      <Use
                        spent={k.spent_rub_today}
                        cap={k.budget_rub_per_day}
                        label={t('overview.budgetDayOf', { name })}
                        lang={lang}
                      />
                    </Table.Td>
                    <Table.Td>
                      <Use
                        spent={k.spent_rub_this_month}
                        cap={k.budget_rub_per_month}
                        label={t('overview.budgetMonthOf', { name })}
                        lang={lang}
                      />
                    </Table.Td>
                  </Table.Tr>
                );
              })}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </Paper>
  );
}
