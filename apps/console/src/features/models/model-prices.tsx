import { useTranslation } from 'react-i18next';
import { Badge, Group, Stack, Text } from '@mantine/core';
import { formatRub } from '../../i18n';

/** The price fields both catalogs answer (names keep the _rub suffix; the currency is the entry's). */
export interface PriceFields {
  input_rub_per_1m: number;
  output_rub_per_1m: number;
  cache_read_rub_per_1m: number | null;
  cache_write_rub_per_1m: number | null;
  cache_write_1h_rub_per_1m?: number | null;
  image_rub: number | null;
  request_rub?: number | null;
}

/** The lowest and highest per-image price of an image model's {size: {quality: price}} table. */
export function perImageRange(
  table: Record<string, Record<string, number>> | null | undefined,
): [number, number] | null {
  const all = Object.values(table ?? {}).flatMap((row) => Object.values(row));
  return all.length ? [Math.min(...all), Math.max(...all)] : null;
}

/**
 * A model's prices as short lines, by kind: tokens in and out per 1M (chat), input per 1M
 * (embeddings), per generated image (image models: never "0.00 / 0.00"), cache read/write when the
 * model has them, per input image and per request when set. `money` writes one amount.
 */
export function priceLines(
  kind: string,
  p: PriceFields,
  perImage: Record<string, Record<string, number>> | null | undefined,
  money: (v: number) => string,
  t: (key: string, vars?: Record<string, string>) => string,
): string[] {
  const out: string[] = [];
  const tokens = (in_: number, out_?: number) =>
    [t('catalog.price.in', { v: money(in_) }), out_ !== undefined ? t('catalog.price.out', { v: money(out_) }) : null]
      .filter(Boolean)
      .join(' · ') + ` ${t('catalog.price.per1m')}`;
  if (kind === 'image') {
    const range = perImageRange(perImage);
    if (range)
      out.push(
        range[0] === range[1]
          ? t('catalog.price.perImage', { v: money(range[0]) })
          : t('catalog.price.perImageRange', { from: money(range[0]), to: money(range[1]) }),
      );
    if (p.input_rub_per_1m > 0 || p.output_rub_per_1m > 0) out.push(tokens(p.input_rub_per_1m, p.output_rub_per_1m));
  } else if (kind === 'embedding') {
    out.push(tokens(p.input_rub_per_1m));
  } else {
    out.push(tokens(p.input_rub_per_1m, p.output_rub_per_1m));
  }
  if (p.cache_read_rub_per_1m !== null) out.push(t('catalog.price.cacheRead', { v: money(p.cache_read_rub_per_1m) }));
  if (p.cache_write_rub_per_1m !== null)
    out.push(t('catalog.price.cacheWrite', { v: money(p.cache_write_rub_per_1m) }));
  if (p.cache_write_1h_rub_per_1m !== null && p.cache_write_1h_rub_per_1m !== undefined)
    out.push(t('catalog.price.cacheWrite1h', { v: money(p.cache_write_1h_rub_per_1m) }));
  if (p.image_rub !== null && p.image_rub > 0) out.push(t('catalog.price.inputImage', { v: money(p.image_rub) }));
  if (p.request_rub !== null && p.request_rub !== undefined && p.request_rub > 0)
    out.push(t('catalog.price.perRequest', { v: money(p.request_rub) }));
  return out;
}

/** The prices in RUB, one line each. */
export function RubPrices({
  kind,
  prices,
  perImage,
}: {
  kind: string;
  prices: PriceFields | null | undefined;
  perImage?: Record<string, Record<string, number>> | null;
}) {
  const { t, i18n } = useTranslation();
  if (!prices) return <Text size="sm">—</Text>;
  const lines = priceLines(
    kind,
    prices,
    perImage,
    (v) => formatRub(v, i18n.language),
    (k, v) => t(k, v),
  );
  return (
    <Stack gap={0}>
      {lines.map((l) => (
        <Text key={l} size="sm" style={{ whiteSpace: 'nowrap' }}>
          {l}
        </Text>
      ))}
    </Stack>
  );
}

/**
 * One badge per capability: the kind, then what a chat model takes besides text. An image model's
 * kind already says "images", so image input is not repeated beside it.
 */
export function CapabilityBadges({
  kind,
  supportsImages,
  supportsTools,
}: {
  kind: string;
  supportsImages: boolean;
  supportsTools: boolean;
}) {
  const { t } = useTranslation();
  const caps = [t(`catalog.kinds.${kind}`)];
  if (kind === 'chat' && supportsImages) caps.push(t('catalog.caps.vision'));
  if (kind === 'chat' && supportsTools) caps.push(t('catalog.caps.tools'));
  return (
    <Group gap={4}>
      {[...new Set(caps)].map((c, i) => (
        <Badge key={c} size="xs" variant={i === 0 ? 'outline' : 'light'}>
          {c}
        </Badge>
      ))}
    </Group>
  );
}
