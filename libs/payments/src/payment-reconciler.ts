import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { Clock } from '@app/common';
import { AppConfig } from '@app/config';
import { PaymentEntity } from './entities/payment.entity';
import { PaymentsRepository } from './payments.repository';
import { nextCheckAt, PaymentsService } from './payments.service';

/** A poll not finished within this is considered lost (its replica died): another replica polls. */
const LEASE_MS = 60_000;
const BATCH = 20;

/**
 * Polls pending payments at YooKassa so a lost notification still credits: every
 * PAYMENTS_RECONCILE_MS at first, then backing off, until final or 24 h old. Each poll is claimed
 * under a lease in the database, so of two replicas one polls a payment; the credit itself is
 * exactly-once whoever makes it.
 */
@Injectable()
export class PaymentReconciler implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('PaymentReconciler');
  private timer?: NodeJS.Timeout;
  private running: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly repo: PaymentsRepository,
    private readonly payments: PaymentsService,
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  onModuleInit(): void {
    if (!this.payments.enabled) return;
    const every = Math.min(5_000, Math.max(25, Math.floor(this.config.payments.reconcileMs / 2)));
    this.timer = setInterval(() => this.kick(), every);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  kick(): void {
    if (this.stopped || this.running) return;
    this.running = this.pass()
      .catch((err: unknown) => this.logger.error({ err }, 'payment reconciliation pass failed'))
      .finally(() => {
        this.running = null;
      });
  }

  /** One pass: polls every payment due now. */
  async pass(): Promise<void> {
    for (;;) {
      const due = await this.repo.claimDue(this.clock.now(), LEASE_MS, BATCH);
      if (due.length === 0 || this.stopped) return;
      await Promise.all(due.map((p) => this.check(p)));
    }
  }

  private async check(p: PaymentEntity): Promise<void> {
    let after = p;
    try {
      after = await this.payments.settle(p);
    } catch (err) {
      this.logger.warn({ paymentId: p.id, err: (err as Error).message }, 'payment poll failed; retrying later');
    }
    if (after.status !== 'pending') return;
    const now = this.clock.now();
    const checks = p.checks + 1;
    await this.repo.endCheck(
      p.id,
      checks,
      nextCheckAt(p.createdAt, checks, now, this.config.payments.reconcileMs),
      now,
    );
  }
}
