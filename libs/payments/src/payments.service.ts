import { Injectable, Logger } from '@nestjs/common';
import { ApiError, Clock, microToRub, newId, rubToMicro } from '@app/common';
import { AppConfig } from '@app/config';
import { BillingService } from '@app/billing';
import { CreatePaymentDto, PaymentDto, PaymentListDto, PaymentsSettingsDto } from './dto/payments.dto';
import { PaymentEntity } from './entities/payment.entity';
import { PaymentCursor, PaymentsRepository } from './payments.repository';
import { rubString, YooKassaClient, YooKassaCreatePayment, YooKassaError, YooKassaPayment } from './yookassa-client';

export const PROVIDER = 'yookassa';
/** A pending payment is polled this long at most; YooKassa cancels unpaid payments well before. */
export const RECONCILE_FOR_MS = 24 * 3_600_000;
/** Polls at the base interval before backing off (doubling, at most 30 minutes apart). */
const CHECKS_AT_BASE = 10;
const MAX_CHECK_GAP_MS = 30 * 60_000;
const PRESETS_RUB = [500, 1_500, 5_000, 15_000];

/** Who asks for a top-up: a signed-in user (their e-mail gets the receipt) or the operator token. */
export interface Payer {
  userId: string | null;
  email: string | null;
}

/** The reference of a YooKassa payment's credit in the ledger (unique across teams). */
export const creditReference = (providerPaymentId: string) => `${PROVIDER}:${providerPaymentId}`;

/**
 * Self-service top-ups: creates YooKassa payments and settles them from YooKassa's own answer
 * (`GET /payments/{id}`, never a notification's body). A succeeded payment is credited through
 * `BillingService.topUp` under the ledger reference `yookassa:<id>`, so every path — duplicated or
 * concurrent notifications, the reconciliation, a replica killed mid-credit — credits it once.
 */
@Injectable()
export class PaymentsService {
  private readonly logger = new Logger('Payments');

  constructor(
    private readonly repo: PaymentsRepository,
    private readonly yookassa: YooKassaClient,
    private readonly billing: BillingService,
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  get enabled(): boolean {
    return this.config.payments.yookassa !== undefined;
  }

  settings(): PaymentsSettingsDto {
    const p = this.config.payments;
    return {
      enabled: this.enabled,
      provider: this.enabled ? PROVIDER : null,
      min_rub: p.minRub,
      max_rub: p.maxRub,
      presets: PRESETS_RUB.filter((v) => v >= p.minRub && v <= p.maxRub),
    };
  }

  /** 404 payments_disabled unless YooKassa is configured. */
  assertEnabled(): void {
    if (!this.enabled) throw ApiError.notFound('Payments are not configured on this gateway.', 'payments_disabled');
  }

  async create(teamId: string, dto: CreatePaymentDto, payer: Payer): Promise<PaymentDto> {
    this.assertEnabled();
    const cfg = this.config.payments;
    if (!(dto.amount_rub >= cfg.minRub && dto.amount_rub <= cfg.maxRub))
      throw ApiError.badRequest(
        `amount_rub must be between ${cfg.minRub} and ${cfg.maxRub} RUB.`,
        'amount_rub',
        'invalid_amount',
      );
    const returnUrl = this.returnUrl(dto.return_url);
    if (cfg.receipts && !payer.email)
      throw ApiError.badRequest(
        "A receipt needs the payer's e-mail: top up from a signed-in session.",
        null,
        'receipt_email_required',
      );
    const now = this.clock.now();
    const amountMicro = rubToMicro(dto.amount_rub);
    const row: PaymentEntity = {
      id: newId(),
      teamId,
      provider: PROVIDER,
      providerPaymentId: null,
      status: 'creating',
      amountMicro,
      creditedMicro: null,
      confirmationUrl: null,
      receiptEmail: cfg.receipts ? payer.email : null,
      cancellationReason: null,
      error: null,
      createdBy: payer.userId,
      checks: 0,
      nextCheckAt: null,
      leaseUntil: null,
      createdAt: now,
      updatedAt: now,
      paidAt: null,
    };
    await this.repo.insert(row);
    let remote: YooKassaPayment;
    try {
      remote = await this.yookassa.create(this.createBody(row, returnUrl), row.id);
      if (!remote.confirmation?.confirmation_url) throw new YooKassaError('YooKassa gave no confirmation_url', null);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      await this.repo.update(row.id, { status: 'failed', error: message.slice(0, 1000), updatedAt: this.clock.now() });
      this.logger.warn({ paymentId: row.id, err: message }, 'payment creation failed');
      throw ApiError.badGateway(
        'The payment provider could not create the payment; nothing was charged. Try again later.',
        'payment_provider_error',
      ).withLogDetail(message);
    }
    const patch: Partial<PaymentEntity> = {
      providerPaymentId: remote.id,
      status: 'pending',
      confirmationUrl: remote.confirmation.confirmation_url ?? null,
      nextCheckAt: now + cfg.reconcileMs,
      updatedAt: this.clock.now(),
    };
    await this.repo.update(row.id, patch);
    return toDto({ ...row, ...patch });
  }

  async list(teamId: string | null, limit = 20, after?: string): Promise<PaymentListDto> {
    const cursor = after === undefined ? undefined : parseCursor(after);
    const rows = await this.repo.list(teamId, limit + 1, cursor);
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    const hasMore = rows.length > limit;
    return {
      object: 'list',
      data: page.map(toDto),
      has_more: hasMore,
      next_cursor: hasMore && last ? `${last.createdAt}.${last.id}` : null,
    };
  }

  async get(teamId: string, id: string): Promise<PaymentDto> {
    const row = /^[0-9a-f-]{36}$/i.test(id) ? await this.repo.findById(id) : null;
    if (!row || row.teamId !== teamId || row.status === 'creating')
      throw ApiError.notFound(`Payment ${id} not found.`, 'payment_not_found', 'payment_id');
    return toDto(row);
  }

  /** The local payment of a YooKassa payment id, or null. */
  findByProviderId(providerPaymentId: string): Promise<PaymentEntity | null> {
    return this.repo.findByProviderId(PROVIDER, providerPaymentId);
  }

  /**
   * Asks YooKassa for the payment and acts on its answer only: succeeded and paid → credit (once);
   * canceled → canceled with its reason (a credited payment keeps its credit: refunds are not
   * debited); anything else → nothing. Answers the payment as it now is.
   */
  async settle(payment: PaymentEntity): Promise<PaymentEntity> {
    if (!payment.providerPaymentId) return payment;
    const remote = await this.yookassa.get(payment.providerPaymentId);
    const now = this.clock.now();
    if (remote.id !== payment.providerPaymentId) {
      this.logger.error({ paymentId: payment.id }, 'YooKassa answered another payment id; ignored');
      return payment;
    }
    if (remote.status === 'succeeded' && remote.paid) return this.credit(payment, remote, now);
    if (remote.status === 'canceled') {
      const reason = remote.cancellation_details?.reason?.slice(0, 64) ?? null;
      if (payment.status === 'canceled' && payment.cancellationReason === reason) return payment;
      const patch = { status: 'canceled' as const, cancellationReason: reason, nextCheckAt: null, updatedAt: now };
      await this.repo.update(payment.id, patch);
      if (payment.status === 'succeeded')
        this.logger.warn({ paymentId: payment.id }, 'a credited payment was canceled at YooKassa; not debited');
      return { ...payment, ...patch };
    }
    return payment;
  }

  private async credit(payment: PaymentEntity, remote: YooKassaPayment, now: number): Promise<PaymentEntity> {
    const paid = this.config.payments.credit === 'income' ? (remote.income_amount ?? remote.amount) : remote.amount;
    if (paid.currency !== 'RUB') {
      this.logger.error({ paymentId: payment.id, currency: paid.currency }, 'payment not in RUB; not credited');
      await this.repo.update(payment.id, { error: `paid in ${paid.currency}`, nextCheckAt: null, updatedAt: now });
      return payment;
    }
    const micro = rubToMicro(paid.value);
    const providerId = remote.id;
    const out = await this.billing.topUp(payment.teamId, micro, creditReference(providerId), {
      details: JSON.stringify({ source: PROVIDER, payment_id: payment.id, provider_payment_id: providerId }),
      within: (m) => this.repo.markSucceededIn(m, payment.id, micro, now),
    });
    if (out.applied) {
      this.logger.log({ paymentId: payment.id, teamId: payment.teamId, creditedMicro: micro }, 'payment credited');
    } else if (payment.status !== 'succeeded') {
      // credited before (another replica, or a run killed after its commit): the row catches up
      const fresh = await this.repo.findById(payment.id);
      if (fresh && fresh.status !== 'succeeded' && fresh.status !== 'canceled')
        await this.repo.update(payment.id, {
          status: 'succeeded',
          creditedMicro: micro,
          paidAt: now,
          nextCheckAt: null,
          leaseUntil: null,
          updatedAt: now,
        });
    }
    return (await this.repo.findById(payment.id)) ?? payment;
  }

  private createBody(row: PaymentEntity, returnUrl: string): YooKassaCreatePayment {
    const cfg = this.config.payments;
    const amount = { value: rubString(row.amountMicro), currency: 'RUB' };
    const sep = returnUrl.includes('?') ? '&' : '?';
    const body: YooKassaCreatePayment = {
      amount,
      capture: true,
      confirmation: {
        type: 'redirect',
        return_url: `${returnUrl}${sep}team_id=${row.teamId}&payment_id=${row.id}`,
      },
      description: `Пополнение баланса: ${amount.value} RUB`,
      metadata: { team_id: row.teamId, payment_id: row.id },
    };
    if (cfg.receipts && row.receiptEmail)
      body.receipt = {
        customer: { email: row.receiptEmail },
        items: [
          {
            description: 'Пополнение баланса',
            quantity: '1.00',
            amount,
            vat_code: cfg.vatCode,
            payment_subject: 'service',
            payment_mode: 'full_payment',
          },
        ],
      };
    return body;
  }

  /** The configured return URL, or the one asked for when it has the same origin. */
  private returnUrl(asked: string | undefined): string {
    const base =
      this.config.payments.returnUrl ?? (this.config.publicBaseUrl && `${this.config.publicBaseUrl}/billing`);
    if (!base)
      throw ApiError.unavailable(
        'Set PAYMENTS_RETURN_URL or PUBLIC_BASE_URL: the payer needs a page to come back to.',
        'payments_misconfigured',
      );
    if (asked === undefined) return base;
    let url: URL;
    try {
      url = new URL(asked);
    } catch {
      throw ApiError.badRequest('return_url must be an absolute URL.', 'return_url', 'invalid_return_url');
    }
    if (url.origin !== new URL(base).origin)
      throw ApiError.badRequest(`return_url must be on ${new URL(base).origin}.`, 'return_url', 'invalid_return_url');
    return url.toString();
  }
}

/** When a pending payment that was just polled (its `checks`-th poll) is next polled; null: no more. */
export function nextCheckAt(createdAt: number, checks: number, now: number, baseMs: number): number | null {
  if (now - createdAt >= RECONCILE_FOR_MS) return null;
  const gap = Math.min(MAX_CHECK_GAP_MS, baseMs * 2 ** Math.max(0, checks - CHECKS_AT_BASE));
  return Math.min(now + Math.max(baseMs, gap), createdAt + RECONCILE_FOR_MS);
}

function parseCursor(after: string): PaymentCursor {
  const m = /^(\d{1,16})\.([0-9a-f-]{36})$/i.exec(after);
  if (!m) throw ApiError.badRequest('after is not a cursor from this list.', 'after', 'invalid_cursor');
  return { createdAt: Number(m[1]), id: m[2] };
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function toDto(p: PaymentEntity): PaymentDto {
  return {
    id: p.id,
    team_id: p.teamId,
    status: p.status,
    amount_rub: microToRub(p.amountMicro),
    credited_rub: p.creditedMicro === null ? null : microToRub(p.creditedMicro),
    confirmation_url: p.status === 'pending' ? p.confirmationUrl : null,
    provider_payment_id: p.providerPaymentId,
    cancellation_reason: p.cancellationReason,
    receipt_email: p.receiptEmail,
    created_at: new Date(p.createdAt).toISOString(),
    updated_at: new Date(p.updatedAt).toISOString(),
    paid_at: iso(p.paidAt),
  };
}
