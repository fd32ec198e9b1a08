import { isIP } from 'node:net';

/** Self-service top-ups through YooKassa (docs/payments.md). */
export interface PaymentsEnv {
  /** YOOKASSA_SHOP_ID + YOOKASSA_SECRET_KEY set: payments are enabled */
  yookassa?: {
    shopId: string;
    secretKey: string;
    /** YOOKASSA_BASE_URL, without a trailing slash */
    baseUrl: string;
    /** YOOKASSA_TIMEOUT_MS: one call to YooKassa */
    timeoutMs: number;
  };
  /** YOOKASSA_NOTIFY_CIDRS: networks notifications may come from (empty: no address check) */
  notifyCidrs: { address: string; prefix: number; family: 'ipv4' | 'ipv6' }[];
  /** PAYMENTS_RETURN_URL: where the payer returns (undefined: PUBLIC_BASE_URL + /billing) */
  returnUrl?: string;
  minRub: number;
  maxRub: number;
  /** PAYMENTS_RECEIPTS: send 54-FZ receipt data with each payment */
  receipts: boolean;
  vatCode: number;
  /** PAYMENTS_CREDIT: credit YooKassa's `amount` (what the payer paid) or `income_amount` (after its fee) */
  credit: 'amount' | 'income';
  /** PAYMENTS_RECONCILE_MS: the first polling interval of a pending payment */
  reconcileMs: number;
}

/** The parsing helpers of the env schema, handed in so this file depends on nothing of it. */
export interface EnvReaders {
  str(name: string): string | undefined;
  int(name: string, def: number, min: number, max: number): number;
  bool(name: string, def: boolean): boolean;
  url(name: string, protocols: string[]): string | undefined;
  fail(message: string): Error;
}

export function parsePaymentsEnv(r: EnvReaders): PaymentsEnv {
  const shopId = r.str('YOOKASSA_SHOP_ID');
  const secretKey = r.str('YOOKASSA_SECRET_KEY');
  if ((shopId === undefined) !== (secretKey === undefined))
    throw r.fail('YOOKASSA_SHOP_ID and YOOKASSA_SECRET_KEY must be set together');
  const minRub = r.int('PAYMENTS_MIN_RUB', 100, 1, 100_000_000);
  const maxRub = r.int('PAYMENTS_MAX_RUB', 1_000_000, 1, 100_000_000);
  if (maxRub < minRub) throw r.fail('PAYMENTS_MAX_RUB must be at least PAYMENTS_MIN_RUB');
  const credit = (r.str('PAYMENTS_CREDIT') ?? 'amount').toLowerCase();
  if (credit !== 'amount' && credit !== 'income')
    throw r.fail(`PAYMENTS_CREDIT must be amount or income, got "${credit}"`);
  return {
    yookassa:
      shopId && secretKey
        ? {
            shopId,
            secretKey,
            baseUrl: r.url('YOOKASSA_BASE_URL', ['http:', 'https:']) ?? 'https://api.yookassa.ru/v3',
            timeoutMs: r.int('YOOKASSA_TIMEOUT_MS', 15_000, 100, 120_000),
          }
        : undefined,
    notifyCidrs: cidrs(r, 'YOOKASSA_NOTIFY_CIDRS'),
    returnUrl: r.url('PAYMENTS_RETURN_URL', ['http:', 'https:']),
    minRub,
    maxRub,
    receipts: r.bool('PAYMENTS_RECEIPTS', false),
    vatCode: r.int('PAYMENTS_VAT_CODE', 1, 1, 12),
    credit,
    reconcileMs: r.int('PAYMENTS_RECONCILE_MS', 30_000, 50, 3_600_000),
  };
}

function cidrs(r: EnvReaders, name: string): PaymentsEnv['notifyCidrs'] {
  const raw = r.str(name);
  if (raw === undefined) return [];
  return raw
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)
    .map((entry) => {
      const [address, bits, extra] = entry.split('/');
      const version = isIP(address ?? '');
      const max = version === 6 ? 128 : 32;
      const prefix = bits === undefined ? max : /^\d{1,3}$/.test(bits) ? Number(bits) : NaN;
      if (version === 0 || extra !== undefined || !(prefix >= 0 && prefix <= max))
        throw r.fail(`${name} entries must be CIDRs like 185.71.76.0/27 or 2a02:5180::/32, got "${entry}"`);
      return { address, prefix, family: version === 6 ? ('ipv6' as const) : ('ipv4' as const) };
    });
}
