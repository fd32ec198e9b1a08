import { BarChart } from '@mantine/charts';
import { useTranslation } from 'react-i18next';
import { formatRub, formatRubAxis } from '../../i18n';
import type { SummaryGroup } from './usage-queries';

export default function SummaryChart({ groups, labels }: { groups: SummaryGroup[]; labels?: Map<string, string> }) {
  const { t, i18n } = useTranslation();
  const data = groups.map((g) => ({
    group: g.group === null ? '—' : (labels?.get(g.group) ?? g.group),
    amount: g.amount_rub,
    requests: g.requests,
  }));
  return (
    <BarChart
      h={240}
      data={data}
      dataKey="group"
      role="img"
      aria-label={t('usage.chart')}
      valueFormatter={(v) => formatRub(v, i18n.language)}
      yAxisProps={{ width: 96, tickFormatter: (v: number) => formatRubAxis(v, i18n.language) }}
      maxBarWidth={56}
      series={[{ name: 'amount', label: t('usage.amount'), color: 'blue.6' }]}
    />
  );
}
