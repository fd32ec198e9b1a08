import { Injectable } from '@nestjs/common';
import { AppConfig } from '@app/config';

/** An amount as YooKassa writes it: a decimal string with two decimals and a currency. */
export interface YooKassaAmount {
  value: string;
  currency: string;
}

/** The fields of YooKassa's payment object the gateway reads (its API v3). */
export interface YooKassaPayment {
  id: string;
  status: 'pending' | 'waiting_for_capture' | 'succeeded' | 'canceled';
  paid: boolean;
  amount: YooKassaAmount;
  income_amount?: YooKassaAmount;
  confirmation?: { type: string; confirmation_url?: string; return_url?: string };
  created_at: string;
  captured_at?: string;
  description?: string;
  metadata?: Record<string, string>;
  cancellation_details?: { party: string; reason: string };
  test?: boolean;
}

/** What the gateway asks YooKassa to create. */
export interface YooKassaCreatePayment {
  amount: YooKassaAmount;
  capture: true;
  confirmation: { type: 'redirect'; return_url: string };
  description: string;
  metadata: Record<string, string>;
  receipt?: {
    customer: { email: string };
    items: {
      description: string;
      quantity: string;
      amount: YooKassaAmount;
      vat_code: number;
      payment_subject: string;
      payment_mode: string;
    }[];
  };
}

/** A failed call: `status` null when YooKassa was not reached (network, timeout). */
export class YooKassaError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
  ) {
    super(message);
    this.name = 'YooKassaError';
  }
}

/**
 * YooKassa's API v3 with the shop's credentials (HTTP Basic: shop id : secret key). Creation carries
 * an `Idempotence-Key` (the local payment id), so a repeated call answers the same payment.
 */
@Injectable()
export class YooKassaClient {
  constructor(private readonly config: AppConfig) {}

  create(body: YooKassaCreatePayment, idempotenceKey: string): Promise<YooKassaPayment> {
    return this.call('POST', '/payments', body, idempotenceKey);
  }

  get(id: string): Promise<YooKassaPayment> {
    return this.call('GET', `/payments/${encodeURIComponent(id)}`);
  }

  private async call(method: string, path: string, body?: unknown, idempotenceKey?: string): Promise<YooKassaPayment> {
    const yk = this.config.payments.yookassa;
    if (!yk) throw new YooKassaError('YooKassa is not configured', null);
    const headers: Record<string, string> = {
      authorization: `Basic ${Buffer.from(`${yk.shopId}:${yk.secretKey}`).toString('base64')}`,
      accept: 'application/json',
    };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (idempotenceKey) headers['idempotence-key'] = idempotenceKey;
    let res: Response;
    try {
      res = await fetch(`${yk.baseUrl}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(yk.timeoutMs),
      });
    } catch (err) {
      throw new YooKassaError(`YooKassa unreachable: ${(err as Error).message}`, null);
    }
    const text = await res.text().catch(() => '');
    if (!res.ok) {
      let detail = text.slice(0, 300);
      try {
        const e = JSON.parse(text) as { code?: string; description?: string };
        if (e.description) detail = `${e.code ?? 'error'}: ${e.description}`;
      } catch {
        // not JSON: keep the text
      }
      throw new YooKassaError(`YooKassa answered ${res.status}: ${detail}`, res.status);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new YooKassaError('YooKassa answered with a body that is not JSON', res.status);
    }
    if (!isPayment(parsed)) throw new YooKassaError('YooKassa answered with no payment object', res.status);
    return parsed;
  }
}

function isPayment(v: unknown): v is YooKassaPayment {
  const p = v as YooKassaPayment | null;
  return (
    typeof p === 'object' &&
    p !== null &&
    typeof p.id === 'string' &&
    typeof p.status === 'string' &&
    typeof p.amount?.value === 'string' &&
    typeof p.amount?.currency === 'string'
  );
}

/** RUB as YooKassa's decimal string ("1500.00") from µRUB (whole kopecks). */
export function rubString(micro: number): string {
  const kopecks = Math.round(micro / 10_000);
  return `${Math.floor(kopecks / 100)}.${String(kopecks % 100).padStart(2, '0')}`;
}
