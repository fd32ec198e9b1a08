import { Injectable } from '@nestjs/common';
import { ApiError, Clock, isSafeFetchError, microToRub, newWebhookSecret, rubToMicro, SafeFetcher } from '@app/common';
import { ApiKeysService } from '@app/auth';
import {
  channelLanguage,
  DEFAULT_BUDGET_PERCENTS,
  DEFAULT_ERROR_RATE_MIN_REQUESTS,
  maskToken,
  newAlertId,
  type AlertKind,
  type AlertLanguage,
  type RuleParams,
  type StoredChannel,
} from './alert-rules';
import { AlertDeliveries } from './alert-deliveries';
import { AlertSecrets } from './alert-secrets';
import { alertTexts } from './alert-texts';
import { AlertSender } from './alert-sender';
import { AlertsRepository } from './alerts.repository';
import {
  AlertChannelDto,
  AlertChannelInputDto,
  AlertEventDto,
  AlertEventListDto,
  AlertEventQueryDto,
  AlertRuleDto,
  AlertRuleListDto,
  CreateAlertDto,
  UpdateAlertDto,
} from './dto/alerts.dto';
import {
  AlertDeliveryAttemptEntity,
  AlertDeliveryEntity,
  AlertEventEntity,
  AlertRuleEntity,
} from './entities/alert.entities';

/** The body fields each kind takes (besides kind, channels, enabled). */
const FIELDS: Record<AlertKind, readonly (keyof UpdateAlertDto)[]> = {
  balance_below: ['threshold_rub'],
  budget_used: ['api_key_id', 'period', 'percent', 'budget_rub'],
  error_rate: ['percent', 'window_minutes', 'min_requests'],
};
const ALL_FIELDS = ['threshold_rub', 'api_key_id', 'period', 'percent', 'budget_rub', 'window_minutes', 'min_requests'];

/** Team alert rules (create, list, edit, delete) and the events they fired. */
@Injectable()
export class AlertsService {
  constructor(
    private readonly repo: AlertsRepository,
    private readonly secrets: AlertSecrets,
    private readonly sender: AlertSender,
    private readonly fetcher: SafeFetcher,
    private readonly keys: ApiKeysService,
    private readonly deliveries: AlertDeliveries,
    private readonly clock: Clock,
  ) {}

  async create(teamId: string, body: CreateAlertDto): Promise<AlertRuleDto> {
    const params = await this.paramsOf(teamId, body.kind, body, null);
    const { stored, shown } = await this.channelsOf(body.channels, []);
    const now = this.clock.now();
    const row: AlertRuleEntity = {
      id: newAlertId('alr'),
      teamId,
      kind: body.kind,
      params: JSON.stringify(params),
      channels: JSON.stringify(stored),
      enabled: body.enabled === false ? 0 : 1,
      crossing: 0,
      createdAt: now,
      updatedAt: now,
    };
    await this.repo.insertRule(row);
    return this.toDto(row, shown);
  }

  async list(teamId: string): Promise<AlertRuleListDto> {
    const rows = await this.repo.rulesOf(teamId);
    return { object: 'list', data: rows.map((r) => this.toDto(r, [])) };
  }

  async get(teamId: string, id: string): Promise<AlertRuleDto> {
    return this.toDto(await this.rule(teamId, id), []);
  }

  /** Changes what the body names; a changed threshold starts a new crossing (it may fire again). */
  async update(teamId: string, id: string, body: UpdateAlertDto): Promise<AlertRuleDto> {
    const row = await this.rule(teamId, id);
    if (body.kind !== undefined && body.kind !== row.kind)
      throw ApiError.badRequest('The kind of an alert rule cannot change; create another rule.', 'kind');
    const before = JSON.parse(row.params) as RuleParams;
    const params = await this.paramsOf(teamId, row.kind as AlertKind, body, before);
    const patch: Partial<AlertRuleEntity> = { updatedAt: this.clock.now() };
    let shown: (string | null)[] = [];
    if (body.channels) {
      const out = await this.channelsOf(body.channels, JSON.parse(row.channels) as StoredChannel[]);
      patch.channels = JSON.stringify(out.stored);
      shown = out.shown;
    }
    if (JSON.stringify(params) !== row.params) {
      patch.params = JSON.stringify(params);
      patch.crossing = row.crossing + 1;
    }
    if (body.enabled !== undefined) patch.enabled = body.enabled ? 1 : 0;
    await this.repo.updateRule(teamId, id, patch);
    return this.toDto({ ...row, ...patch }, shown);
  }

  async remove(teamId: string, id: string): Promise<void> {
    if (!(await this.repo.deleteRule(teamId, id))) throw notFound(id);
  }

  async events(teamId: string, q: AlertEventQueryDto): Promise<AlertEventListDto> {
    const limit = q.limit ?? 50;
    let before: number | undefined;
    if (q.before !== undefined) {
      before = Date.parse(q.before);
      if (!Number.isFinite(before)) throw ApiError.badRequest('before must be an ISO 8601 instant.', 'before');
    }
    const rows = await this.repo.listEvents(teamId, { ruleId: q.rule_id, before, limit: limit + 1 });
    const page = rows.slice(0, limit);
    const deliveries = await this.repo.deliveriesOf(page.map((e) => e.id));
    const attempts = await this.repo.attemptsOf(deliveries.map((d) => d.id));
    const data = page.map((e) => eventDto(e, deliveries, attempts));
    return { object: 'list', data, has_more: rows.length > limit };
  }

  /**
   * Sends a test through every channel of a rule now: an event marked `test` (its own period key, so
   * it never stands in for a real crossing) with one delivery per channel, sent and retried like any
   * other and listed with its attempts.
   */
  async sendTest(teamId: string, id: string): Promise<AlertEventDto> {
    const rule = await this.rule(teamId, id);
    const now = this.clock.now();
    const eventId = newAlertId('ale');
    const event: AlertEventEntity = {
      id: eventId,
      ruleId: rule.id,
      teamId,
      kind: rule.kind,
      threshold: '0',
      periodKey: `t:${eventId}`,
      payload: JSON.stringify({
        value: 0,
        test: true,
        message: alertTexts('en').test(rule.kind, rule.id),
      }),
      firedAt: now,
    };
    const deliveries: AlertDeliveryEntity[] = (JSON.parse(rule.channels) as StoredChannel[]).map((c) => ({
      id: newAlertId('ald'),
      eventId,
      teamId,
      channelType: c.type,
      channel: JSON.stringify(c),
      status: 'pending',
      attempts: 0,
      nextAttemptAt: now,
      leaseUntil: null,
      lastError: null,
      deliveredAt: null,
      createdAt: now,
    }));
    await this.repo.insertEventOnce({ event, deliveries });
    this.deliveries.kick();
    return eventDto(event, deliveries, []);
  }

  private async rule(teamId: string, id: string): Promise<AlertRuleEntity> {
    const row = /^alr_[0-9a-f]{24}$/.test(id) ? await this.repo.findRule(teamId, id) : null;
    if (!row) throw notFound(id);
    return row;
  }

  // ── parameters ─────────────────────────────────────────────────────────────────────────────────

  private async paramsOf(
    teamId: string,
    kind: AlertKind,
    body: UpdateAlertDto,
    before: RuleParams | null,
  ): Promise<RuleParams> {
    const given = body as Record<string, unknown>;
    const foreign = ALL_FIELDS.find((f) => given[f] !== undefined && !FIELDS[kind].includes(f as keyof UpdateAlertDto));
    if (foreign) throw ApiError.badRequest(`${foreign} does not apply to ${kind} alerts.`, foreign);
    if (kind === 'balance_below') {
      const prev = before?.kind === kind ? before : null;
      if (body.threshold_rub === undefined && !prev)
        throw ApiError.badRequest('threshold_rub is required for balance_below alerts.', 'threshold_rub');
      return {
        kind,
        thresholdMicro: body.threshold_rub !== undefined ? rubToMicro(body.threshold_rub) : prev!.thresholdMicro,
      };
    }
    if (kind === 'budget_used') return this.budgetParams(teamId, body, before?.kind === kind ? before : null);
    const prev = before?.kind === kind ? before : null;
    const percent = body.percent !== undefined ? body.percent : prev?.percent;
    if (typeof percent !== 'number' || !Number.isFinite(percent) || percent < 0 || percent > 100)
      throw ApiError.badRequest('percent must be a number from 0 to 100 for error_rate alerts.', 'percent');
    return {
      kind,
      percent,
      windowMinutes: body.window_minutes ?? prev?.windowMinutes ?? 5,
      minRequests: body.min_requests ?? prev?.minRequests ?? DEFAULT_ERROR_RATE_MIN_REQUESTS,
    };
  }

  private async budgetParams(
    teamId: string,
    body: UpdateAlertDto,
    prev: Extract<RuleParams, { kind: 'budget_used' }> | null,
  ): Promise<RuleParams> {
    const period = body.period ?? prev?.period;
    if (!period) throw ApiError.badRequest('period (day or month) is required for budget_used alerts.', 'period');
    const raw = body.percent !== undefined ? body.percent : (prev?.percents ?? DEFAULT_BUDGET_PERCENTS);
    const list = typeof raw === 'number' ? [raw] : raw;
    if (
      !Array.isArray(list) ||
      list.length === 0 ||
      list.length > 10 ||
      list.some((p) => typeof p !== 'number' || !Number.isFinite(p) || p <= 0 || p > 1000)
    )
      throw ApiError.badRequest(
        'percent must be a list of 1 to 10 percentages above 0 (at most 1000) for budget_used alerts.',
        'percent',
      );
    const percents = [...new Set(list)].sort((a, b) => a - b);
    const apiKeyId = body.api_key_id !== undefined ? body.api_key_id.toLowerCase() : (prev?.apiKeyId ?? null);
    const budgetMicro = body.budget_rub !== undefined ? rubToMicro(body.budget_rub) : (prev?.budgetMicro ?? null);
    if (apiKeyId) {
      const key = await this.keys.get(apiKeyId).catch(() => null);
      if (!key || key.teamId !== teamId)
        throw ApiError.notFound(`API key ${apiKeyId} not found in this team.`, 'api_key_not_found', 'api_key_id');
      const own = period === 'day' ? key.budgetDayMicro : key.budgetMonthMicro;
      if (budgetMicro === null && own === null)
        throw ApiError.badRequest(
          `The key has no ${period === 'day' ? 'daily' : 'monthly'} budget; set one on the key or give budget_rub.`,
          'budget_rub',
        );
    } else if (budgetMicro === null)
      throw ApiError.badRequest(
        'budget_rub is required for a team budget_used alert (a team has no budget of its own).',
        'budget_rub',
      );
    return { kind: 'budget_used', apiKeyId, period, percents, budgetMicro };
  }

  // ── channels ───────────────────────────────────────────────────────────────────────────────────

  /**
   * The channels to store (secrets sealed) and, per channel, the webhook secret to show once (or null).
   * A channel's language is the one given; absent, that of the same channel (type and target) in
   * `existing`, else English.
   */
  private async channelsOf(
    input: AlertChannelInputDto[],
    existing: StoredChannel[],
  ): Promise<{ stored: StoredChannel[]; shown: (string | null)[] }> {
    const stored: StoredChannel[] = [];
    const shown: (string | null)[] = [];
    for (const [i, c] of input.entries()) {
      const param = (f: string) => `channels[${i}].${f}`;
      const allowed = { webhook: ['url'], email: ['to'], telegram: ['bot_token', 'chat_id'] }[c.type];
      for (const f of ['url', 'to', 'bot_token', 'chat_id'] as const) {
        if (c[f] !== undefined && !allowed.includes(f))
          throw ApiError.badRequest(`${f} does not apply to ${c.type} channels.`, param(f));
        if (c[f] === undefined && allowed.includes(f))
          throw ApiError.badRequest(`${f} is required for ${c.type} channels.`, param(f));
      }
      const languageOf = (target: string): AlertLanguage =>
        c.language ?? channelLanguage(existing.find((e) => channelTarget(e) === `${c.type}:${target}`));
      if (c.type === 'webhook') {
        const url = await this.vetUrl(c.url!, param('url'));
        const language = languageOf(url);
        const kept = existing.find((e) => e.type === 'webhook' && e.url === url);
        if (kept) {
          stored.push({ ...kept, language });
          shown.push(null);
          continue;
        }
        const secret = newWebhookSecret();
        stored.push({ type: 'webhook', url, secret: await this.secrets.seal(secret), language });
        shown.push(secret);
      } else if (c.type === 'email') {
        if (!this.sender.mailConfigured)
          throw ApiError.badRequest(
            'E-mail alerts need SMTP on the server (SMTP_URL and MAIL_FROM).',
            param('to'),
            'email_not_configured',
          );
        const to = c.to!.map((t) => t.toLowerCase());
        stored.push({ type: 'email', to, language: languageOf(to.join(',')) });
        shown.push(null);
      } else {
        stored.push({
          type: 'telegram',
          chat_id: c.chat_id!,
          bot_token: await this.secrets.seal(c.bot_token!),
          bot_token_hint: maskToken(c.bot_token!),
          language: languageOf(c.chat_id!),
        });
        shown.push(null);
      }
    }
    return { stored, shown };
  }

  /** The webhook URL must pass the SSRF policy now (and is checked again at every delivery). */
  private async vetUrl(url: string, param: string): Promise<string> {
    try {
      await this.fetcher.assertPublicUrl(url);
    } catch (err) {
      if (isSafeFetchError(err))
        throw ApiError.badRequest(
          `The webhook URL is refused: ${err.message}`,
          param,
          err.code === 'forbidden_address' ? 'forbidden_address' : 'invalid_url',
        );
      throw err;
    }
    return new URL(url).href;
  }

  // ── views ──────────────────────────────────────────────────────────────────────────────────────

  private toDto(row: AlertRuleEntity, shown: (string | null)[]): AlertRuleDto {
    const p = JSON.parse(row.params) as RuleParams;
    const channels = (JSON.parse(row.channels) as StoredChannel[]).map((c, i) => channelDto(c, shown[i] ?? null));
    return {
      id: row.id,
      object: 'alert_rule',
      team_id: row.teamId,
      kind: row.kind as AlertKind,
      enabled: row.enabled === 1,
      threshold_rub: p.kind === 'balance_below' ? microToRub(p.thresholdMicro) : null,
      api_key_id: p.kind === 'budget_used' ? p.apiKeyId : null,
      period: p.kind === 'budget_used' ? p.period : null,
      percent: p.kind === 'budget_used' ? p.percents : p.kind === 'error_rate' ? p.percent : null,
      budget_rub: p.kind === 'budget_used' && p.budgetMicro !== null ? microToRub(p.budgetMicro) : null,
      window_minutes: p.kind === 'error_rate' ? p.windowMinutes : null,
      min_requests: p.kind === 'error_rate' ? p.minRequests : null,
      channels,
      created_at: iso(row.createdAt),
      updated_at: iso(row.updatedAt),
    };
  }
}

function channelDto(c: StoredChannel, secret: string | null): AlertChannelDto {
  const out: AlertChannelDto = {
    type: c.type,
    url: c.type === 'webhook' ? c.url : null,
    to: c.type === 'email' ? c.to : null,
    chat_id: c.type === 'telegram' ? c.chat_id : null,
    bot_token_hint: c.type === 'telegram' ? c.bot_token_hint : null,
    language: channelLanguage(c),
  };
  if (secret !== null) out.secret = secret;
  return out;
}

function deliveryDto(d: AlertDeliveryEntity, attempts: AlertDeliveryAttemptEntity[]) {
  const c = JSON.parse(d.channel) as StoredChannel;
  return {
    id: d.id,
    channel_type: c.type,
    target: c.type === 'webhook' ? c.url : c.type === 'email' ? c.to.join(', ') : c.chat_id,
    status: d.status,
    delivered_at: d.deliveredAt === null ? null : iso(d.deliveredAt),
    next_attempt_at: d.status === 'pending' ? iso(d.nextAttemptAt) : null,
    attempts: attempts
      .filter((a) => a.deliveryId === d.id)
      .map((a) => ({
        attempt: a.attempt,
        at: iso(a.at),
        ok: a.ok === 1,
        status_code: a.statusCode,
        error: a.error,
        duration_ms: a.durationMs,
      })),
  };
}

/** `type:target` of a stored channel: its URL, its recipients, or its chat. */
function channelTarget(c: StoredChannel): string {
  return `${c.type}:${c.type === 'webhook' ? c.url : c.type === 'email' ? c.to.join(',') : c.chat_id}`;
}

function notFound(id: string): ApiError {
  return ApiError.notFound(`Alert rule ${id} not found.`, 'alert_not_found', 'alert_id');
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function eventDto(
  e: AlertEventEntity,
  deliveries: AlertDeliveryEntity[],
  attempts: AlertDeliveryAttemptEntity[],
): AlertEventDto {
  const payload = JSON.parse(e.payload) as { value: number; message: string; test?: boolean } & Record<string, unknown>;
  const field = <T>(k: string): T | null => (payload[k] ?? null) as T | null;
  return {
    id: e.id,
    object: 'alert_event',
    rule_id: e.ruleId,
    kind: e.kind as AlertKind,
    threshold: Number(e.threshold),
    period_key: e.periodKey,
    value: payload.value,
    message: payload.message,
    details: {
      unit: field('unit'),
      billing_url: field('billing_url'),
      spent_rub: field('spent_rub'),
      budget_rub: field('budget_rub'),
      api_key_id: field('api_key_id'),
      period: field('period'),
      errors: field('errors'),
      requests: field('requests'),
      window_minutes: field('window_minutes'),
    },
    fired_at: iso(e.firedAt),
    test: payload.test === true,
    deliveries: deliveries.filter((d) => d.eventId === e.id).map((d) => deliveryDto(d, attempts)),
  };
}
