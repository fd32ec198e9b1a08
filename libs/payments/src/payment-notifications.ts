import { BlockList } from 'node:net';
import { Injectable, Logger } from '@nestjs/common';
import { ApiError, Clock } from '@app/common';
import { AppConfig } from '@app/config';
import { PaymentsRepository } from './payments.repository';
import { PaymentsService } from './payments.service';

/**
 * YooKassa's HTTP notifications (`{type: "notification", event, object: {id, …}}`). Only the payment
 * id is taken from the body; what happened is asked of YooKassa itself (`PaymentsService.settle`).
 * With YOOKASSA_NOTIFY_CIDRS set, a notification from any other address is refused.
 */
@Injectable()
export class PaymentNotifications {
  private readonly logger = new Logger('PaymentNotifications');
  private readonly allowed: BlockList | null;

  constructor(
    private readonly payments: PaymentsService,
    private readonly repo: PaymentsRepository,
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {
    const cidrs = config.payments.notifyCidrs;
    this.allowed = cidrs.length ? new BlockList() : null;
    for (const c of cidrs) this.allowed?.addSubnet(c.address, c.prefix, c.family);
  }

  async receive(body: unknown, ip: string | undefined): Promise<void> {
    this.payments.assertEnabled();
    if (this.allowed && !this.fromAllowed(ip))
      throw ApiError.forbidden("Notifications are accepted from YooKassa's networks only.", 'notification_forbidden');
    const id = paymentIdOf(body);
    if (!id) throw ApiError.badRequest('The notification names no payment (object.id).', 'object.id');
    const payment = await this.payments.findByProviderId(id);
    if (!payment) throw ApiError.notFound(`Payment ${id} is not known here.`, 'payment_not_found');
    try {
      await this.payments.settle(payment);
    } catch (err) {
      // YooKassa could not be asked now: the reconciliation asks again soon
      this.logger.warn({ paymentId: payment.id, err: (err as Error).message }, 'notification not settled now');
      if (payment.status === 'pending')
        await this.repo.update(payment.id, { nextCheckAt: this.clock.now(), updatedAt: this.clock.now() });
    }
  }

  private fromAllowed(ip: string | undefined): boolean {
    if (!ip || !this.allowed) return false;
    const v4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)?.[1];
    return v4 ? this.allowed.check(v4, 'ipv4') : this.allowed.check(ip, ip.includes(':') ? 'ipv6' : 'ipv4');
  }
}

function paymentIdOf(body: unknown): string | null {
  const id = (body as { object?: { id?: unknown } } | null)?.object?.id;
  return typeof id === 'string' && /^[\w-]{1,64}$/.test(id) ? id : null;
}
