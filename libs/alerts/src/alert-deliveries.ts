import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { Clock } from '@app/common';
import { AppConfig } from '@app/config';
import { channelLanguage, newAlertId, retryDelayMs, type AlertLanguage, type StoredChannel } from './alert-rules';
import { AlertMessage, AlertSender } from './alert-sender';
import { AlertFacts, deliveredTexts } from './alert-texts';
import { AlertsRepository } from './alerts.repository';
import { AlertDeliveryEntity, AlertEventEntity } from './entities/alert.entities';

/** An attempt not finished within this is considered lost (its replica died): another may retry. */
const LEASE_MS = 60_000;
const BATCH = 20;

/**
 * Sends the deliveries of fired alerts: each attempt claimed under a lease in the database (one
 * replica sends it), recorded with its outcome, and retried with exponential backoff
 * (ALERT_RETRY_BASE_MS doubling, at most 10 minutes) up to ALERT_DELIVERY_MAX_ATTEMPTS.
 */
@Injectable()
export class AlertDeliveries implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('AlertDeliveries');
  private timer?: NodeJS.Timeout;
  private draining: Promise<void> | null = null;
  private again = false;
  private stopped = false;

  constructor(
    private readonly repo: AlertsRepository,
    private readonly sender: AlertSender,
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  onModuleInit(): void {
    const every = Math.min(5_000, Math.max(100, Math.floor(this.config.alerts.retryBaseMs / 2)));
    this.timer = setInterval(() => this.kick(), every);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
  }

  /** Sends what is due now (soon after an event fired, and on every poll). */
  kick(): void {
    if (this.stopped) return;
    if (this.draining) {
      this.again = true;
      return;
    }
    this.draining = this.drain()
      .catch((err: unknown) => this.logger.error({ err }, 'alert delivery pass failed'))
      .finally(() => {
        this.draining = null;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  /** Resolves when the current pass (if any) is over. */
  async idle(): Promise<void> {
    while (this.draining) await this.draining;
  }

  private async drain(): Promise<void> {
    for (;;) {
      const due = await this.repo.claimDue(this.clock.now(), LEASE_MS, BATCH);
      if (due.length === 0 || this.stopped) return;
      await Promise.all(due.map((d) => this.attempt(d)));
    }
  }

  private async attempt(d: AlertDeliveryEntity): Promise<void> {
    const event = await this.repo.findEvent(d.eventId);
    const channel = JSON.parse(d.channel) as StoredChannel;
    const outcome = event
      ? await this.sender.send(channel, messageOf(event, d.id, channelLanguage(channel)))
      : { ok: false, permanent: true, statusCode: null, error: 'The event is gone.', durationMs: 0 };
    const now = this.clock.now();
    const attempts = d.attempts + 1;
    const last = attempts >= this.config.alerts.deliveryMaxAttempts || outcome.permanent;
    await this.repo.recordAttempt(
      {
        id: newAlertId('ala'),
        deliveryId: d.id,
        attempt: attempts,
        at: now,
        ok: outcome.ok ? 1 : 0,
        statusCode: outcome.statusCode,
        error: outcome.error,
        durationMs: outcome.durationMs,
      },
      {
        status: outcome.ok ? 'delivered' : last ? 'failed' : 'pending',
        attempts,
        nextAttemptAt: outcome.ok || last ? now : now + retryDelayMs(attempts, this.config.alerts.retryBaseMs),
        lastError: outcome.error,
        deliveredAt: outcome.ok ? now : null,
      },
    );
    if (!outcome.ok)
      this.logger.warn(
        { deliveryId: d.id, channel: channel.type, attempt: attempts, error: outcome.error },
        last ? 'alert delivery failed for good' : 'alert delivery failed; retrying later',
      );
  }
}

/**
 * The event as a webhook body (JSON: the structured fields as stored, `message` in the channel's
 * language) and as a subject and text in that language (e-mail, Telegram).
 */
export function messageOf(event: AlertEventEntity, deliveryId: string, language: AlertLanguage): AlertMessage {
  const payload = JSON.parse(event.payload) as AlertFacts & Record<string, unknown>;
  const test = payload.test === true;
  const { subject, text, message } = deliveredTexts(language, {
    kind: event.kind,
    threshold: Number(event.threshold),
    teamId: event.teamId,
    ruleId: event.ruleId,
    firedAt: event.firedAt,
    facts: payload,
  });
  return {
    id: deliveryId,
    subject,
    text,
    json: {
      type: test ? 'alert.test' : 'alert.fired',
      timestamp: new Date(event.firedAt).toISOString(),
      data: {
        event_id: event.id,
        rule_id: event.ruleId,
        team_id: event.teamId,
        kind: event.kind,
        threshold: Number(event.threshold),
        period_key: event.periodKey,
        ...payload,
        message,
        language,
      },
    },
  };
}
