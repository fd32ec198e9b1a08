/**
 * A fake YooKassa (API v3, test-only): HTTP Basic auth with the shop id and secret key, payment
 * creation with `Idempotence-Key` replay (the same key answers the same payment), `GET
 * /payments/{id}`, YooKassa's error shape (`{type: "error", id, code, description, parameter}`),
 * status transitions driven by the test (`succeed`, `cancel`), notifications POSTed to the gateway
 * in YooKassa's form (`{type: "notification", event, object}`), and a confirmation page the payer's
 * browser is sent to (its "Pay" button succeeds the payment, notifies, and redirects back).
 */
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';

export interface FakeYooKassaPayment {
  id: string;
  status: 'pending' | 'waiting_for_capture' | 'succeeded' | 'canceled';
  paid: boolean;
  amount: { value: string; currency: string };
  income_amount?: { value: string; currency: string };
  description?: string;
  recipient: { account_id: string; gateway_id: string };
  created_at: string;
  captured_at?: string;
  confirmation: { type: 'redirect'; confirmation_url: string; return_url: string };
  test: boolean;
  refundable: boolean;
  metadata: Record<string, string>;
  cancellation_details?: { party: string; reason: string };
  receipt_registration?: string;
}

export interface YooKassaRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown> | null;
}

export class FakeYooKassa {
  readonly payments = new Map<string, FakeYooKassaPayment>();
  /** the request body each payment was created with */
  readonly created = new Map<string, Record<string, unknown>>();
  readonly requests: YooKassaRequest[] = [];
  /** true: every API call fails (connection closed without an answer) */
  down = false;
  /** where notifications go (the gateway's notification URL) */
  notifyUrl = '';
  /** how long (ms) each `GET /payments/{id}` waits before answering: a slow YooKassa */
  getDelayMs: () => number = () => 0;
  private readonly byKey = new Map<string, string>();

  private constructor(
    private readonly server: Server,
    readonly origin: string,
    readonly shopId: string,
    readonly secretKey: string,
  ) {}

  /** YOOKASSA_BASE_URL for the gateway */
  get baseUrl(): string {
    return `${this.origin}/v3`;
  }

  static async start(opts: { shopId?: string; secretKey?: string } = {}): Promise<FakeYooKassa> {
    const holder: { fake?: FakeYooKassa } = {};
    const server = createServer((req, res) => void holder.fake?.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    holder.fake = new FakeYooKassa(
      server,
      `http://127.0.0.1:${port}`,
      opts.shopId ?? '123456',
      opts.secretKey ?? 'test_secret',
    );
    return holder.fake;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  /** The payment of a gateway's local payment id (metadata.payment_id). */
  byLocalId(localId: string): FakeYooKassaPayment | undefined {
    return [...this.payments.values()].find((p) => p.metadata.payment_id === localId);
  }

  /** The payer paid: succeeded, paid, captured (income = amount less a 3.5% fee). */
  succeed(id: string): FakeYooKassaPayment {
    const p = this.must(id);
    const kopecks = Math.round(Number(p.amount.value) * 100);
    p.status = 'succeeded';
    p.paid = true;
    p.captured_at = new Date().toISOString();
    p.income_amount = { value: kopString(Math.round(kopecks * 0.965)), currency: p.amount.currency };
    return p;
  }

  cancel(id: string, reason = 'expired_on_confirmation', party = 'yoo_money'): FakeYooKassaPayment {
    const p = this.must(id);
    p.status = 'canceled';
    p.cancellation_details = { party, reason };
    return p;
  }

  /**
   * POSTs a notification to the gateway as YooKassa does; `object` overrides fields of the payment
   * object sent (a forged or tampered body). Answers the gateway's status.
   */
  async notify(
    id: string,
    event = 'payment.succeeded',
    object: Record<string, unknown> = {},
    url = this.notifyUrl,
  ): Promise<number> {
    const body = { type: 'notification', event, object: { ...(this.payments.get(id) ?? { id }), ...object } };
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    await res.text();
    return res.status;
  }

  private must(id: string): FakeYooKassaPayment {
    const p = this.payments.get(id);
    if (!p) throw new Error(`fake YooKassa: no payment ${id}`);
    return p;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString();
    const url = new URL(req.url ?? '/', this.origin);
    let body: Record<string, unknown> | null = null;
    try {
      body = raw ? (JSON.parse(raw) as Record<string, unknown>) : null;
    } catch {
      body = null;
    }
    this.requests.push({ method: req.method ?? '', path: url.pathname, headers: req.headers, body });

    const checkout = /^\/checkout\/([\w-]+)(\/pay)?$/.exec(url.pathname);
    if (checkout) return this.checkout(checkout[1], !!checkout[2], req.method ?? 'GET', res);
    if (!url.pathname.startsWith('/v3/')) return error(res, 404, 'not_found', 'Unknown path');
    if (this.down) {
      req.socket.destroy();
      return;
    }
    const expected = `Basic ${Buffer.from(`${this.shopId}:${this.secretKey}`).toString('base64')}`;
    if (req.headers.authorization !== expected)
      return error(res, 401, 'invalid_credentials', "Login has unknown format or doesn't exist");
    if (req.method === 'POST' && url.pathname === '/v3/payments') return this.create(req, body, raw, res);
    const get = /^\/v3\/payments\/([\w-]+)$/.exec(url.pathname);
    if (req.method === 'GET' && get) {
      const delay = this.getDelayMs();
      if (delay > 0) await new Promise((r) => setTimeout(r, delay));
      const p = this.payments.get(get[1]);
      if (!p) return error(res, 404, 'not_found', 'Payment not found or forbidden');
      return send(res, 200, p);
    }
    return error(res, 404, 'not_found', 'Unknown method');
  }

  private create(req: IncomingMessage, body: Record<string, unknown> | null, raw: string, res: ServerResponse): void {
    const key = req.headers['idempotence-key'];
    if (typeof key !== 'string' || !key)
      return error(res, 400, 'invalid_request', 'Idempotence key is missing', 'Idempotence-Key');
    const seen = this.byKey.get(key);
    if (seen) {
      if (JSON.stringify(this.created.get(seen)) !== JSON.stringify(body))
        return error(res, 400, 'invalid_request', 'Idempotence key duplicated with another request', 'Idempotence-Key');
      return send(res, 200, this.payments.get(seen));
    }
    if (!body) return error(res, 400, 'invalid_request', `Request body is not JSON: ${raw.slice(0, 40)}`);
    const amount = body.amount as { value?: unknown; currency?: unknown } | undefined;
    if (typeof amount?.value !== 'string' || !/^\d+\.\d{2}$/.test(amount.value) || amount.currency !== 'RUB')
      return error(res, 400, 'invalid_request', 'Invalid amount value', 'amount.value');
    const confirmation = body.confirmation as { type?: unknown; return_url?: unknown } | undefined;
    if (confirmation?.type !== 'redirect' || typeof confirmation.return_url !== 'string')
      return error(res, 400, 'invalid_request', 'Invalid confirmation', 'confirmation');
    const id = `${randomUUID().slice(0, 8)}-000f-5000-9000-${randomUUID().slice(-12)}`;
    const p: FakeYooKassaPayment = {
      id,
      status: 'pending',
      paid: false,
      amount: { value: amount.value, currency: 'RUB' },
      description: typeof body.description === 'string' ? body.description : undefined,
      recipient: { account_id: this.shopId, gateway_id: '100500' },
      created_at: new Date().toISOString(),
      confirmation: {
        type: 'redirect',
        confirmation_url: `${this.origin}/checkout/${id}`,
        return_url: confirmation.return_url,
      },
      test: true,
      refundable: false,
      metadata: (body.metadata as Record<string, string>) ?? {},
    };
    if (body.receipt) p.receipt_registration = 'pending';
    this.payments.set(id, p);
    this.created.set(id, body);
    this.byKey.set(key, id);
    send(res, 200, p);
  }

  /** The payment page: GET shows the amount and a Pay button; POST …/pay pays, notifies, redirects back. */
  private checkout(id: string, pay: boolean, method: string, res: ServerResponse): void {
    const p = this.payments.get(id);
    if (!p) return error(res, 404, 'not_found', 'Payment not found');
    if (pay && method === 'POST') {
      this.succeed(id);
      void this.notify(id).catch(() => undefined);
      res.writeHead(303, { location: p.confirmation.return_url });
      res.end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      `<!doctype html><html><head><title>YooKassa test checkout</title></head><body style="font-family:sans-serif;padding:40px">` +
        `<h1>Оплата ${p.amount.value} ₽</h1><p>${p.description ?? ''}</p>` +
        `<form method="post" action="/checkout/${id}/pay"><button type="submit" id="pay">Pay ${p.amount.value} RUB</button></form>` +
        `</body></html>`,
    );
  }
}

function kopString(kopecks: number): string {
  return `${Math.floor(kopecks / 100)}.${String(kopecks % 100).padStart(2, '0')}`;
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** YooKassa's error body. */
function error(res: ServerResponse, status: number, code: string, description: string, parameter?: string): void {
  send(res, status, { type: 'error', id: randomUUID(), code, description, ...(parameter ? { parameter } : {}) });
}
