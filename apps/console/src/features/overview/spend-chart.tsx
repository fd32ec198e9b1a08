import { BarChart } from '@mantine/charts';
import { useTranslation } from 'react-i18next';
import { formatRub, formatRubAxis } from '../../i18n';

const COLORS = ['blue.6', 'teal.6', 'grape.6', 'orange.6', 'cyan.6', 'pink.6', 'lime.6', 'indigo.6'];

/** Stacked bars: RUB spent per day, one color per model. */
export default function SpendChart({ rows, models }: { rows: Record<string, string | number>[]; models: string[] }) {
  const { t, i18n } = useTranslation();
  return (
    <BarChart
      h={260}
      data={rows}
      dataKey="day"
      type="stacked"
      withLegend
      yAxisProps={{ width: 96, tickFormatter: (v: number) => formatRubAxis(v, i18n.language) }}
      role="img"
      aria-label={t('overview.chartLabel')}
      valueFormatter={(v) => formatRub(v, i18n.language)}
      series={models.map((m, i) => ({ name: m, color: COLORS[i % COLORS.length] }))}
    />
  );
}
