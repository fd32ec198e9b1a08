import { Injectable } from '@nestjs/common';
import { ApiError, Clock } from '@app/common';
import { AppConfig } from '@app/config';
import { BucketCharge, BucketState, RateLimiter } from './rate-limiter';
import { RateLimitEvents } from './rate-limit-events';

/** Who is asking, with the limits stored on their key and team (null = the env default). */
export interface LimitSubject {
  teamId: string;
  apiKeyId: string;
  keyRpm: number | null;
  keyTpm: number | null;
  teamRpm: number | null;
  teamTpm: number | null;
}

/** What an admitted request holds: the token buckets to correct when the real count is known. */
export interface RateTicket {
  tokenBuckets: BucketCharge[];
  estimatedTokens: number;
}

type Bucket = BucketCharge & { scope: 'key' | 'team'; kind: 'requests' | 'tokens' };

/**
 * Requests per minute and tokens per minute, per API key and per team, in one atomic decision
 * (RateLimiter: Redis across replicas, in-process otherwise). A request costs 1 request and its
 * estimated tokens (the prompt, as counted before the call); the completion is added when the
 * request settles (`settleTokens`), so a key that used up its tokens is refused until they refill.
 * Over a limit → 429 `rate_limit_exceeded` with `type` "requests" or "tokens" (as OpenAI does),
 * Retry-After and the x-ratelimit-* headers; admitted requests get the same headers.
 */
@Injectable()
export class RateLimitService {
  constructor(
    private readonly limiter: RateLimiter,
    private readonly clock: Clock,
    private readonly config: AppConfig,
    private readonly events: RateLimitEvents,
  ) {}

  /** The limits in force (stored value, else the env default; undefined = unlimited). */
  effective(s: LimitSubject): { keyRpm?: number; keyTpm?: number; teamRpm?: number; teamTpm?: number } {
    return {
      keyRpm: s.keyRpm ?? this.config.defaultKeyRpmLimit,
      keyTpm: s.keyTpm ?? this.config.defaultKeyTpmLimit,
      teamRpm: s.teamRpm ?? this.config.defaultTeamRpmLimit,
      teamTpm: s.teamTpm ?? this.config.defaultTeamTpmLimit,
    };
  }

  /**
   * Counts one request (unless `countRequest` is false: a second metered step of the same request)
   * and `estimatedTokens`. Returns the headers to send and the ticket for the settle correction;
   * throws the 429 (with headers) when a limit is reached. No limits → no store call at all.
   */
  async admit(
    s: LimitSubject,
    estimatedTokens: number,
    countRequest = true,
  ): Promise<{ ticket: RateTicket; headers: Record<string, string> }> {
    const e = this.effective(s);
    const tokens = Math.max(0, Math.ceil(estimatedTokens));
    const buckets: Bucket[] = [];
    if (countRequest && e.keyRpm)
      buckets.push({ key: `k:${s.apiKeyId}:r`, limit: e.keyRpm, cost: 1, scope: 'key', kind: 'requests' });
    if (e.keyTpm)
      buckets.push({ key: `k:${s.apiKeyId}:t`, limit: e.keyTpm, cost: tokens, scope: 'key', kind: 'tokens' });
    if (countRequest && e.teamRpm)
      buckets.push({ key: `t:${s.teamId}:r`, limit: e.teamRpm, cost: 1, scope: 'team', kind: 'requests' });
    if (e.teamTpm)
      buckets.push({ key: `t:${s.teamId}:t`, limit: e.teamTpm, cost: tokens, scope: 'team', kind: 'tokens' });
    const tokenBuckets = buckets.filter((b) => b.kind === 'tokens');
    const ticket: RateTicket = {
      tokenBuckets: tokenBuckets.map(({ key, limit }) => ({ key, limit, cost: 0 })),
      estimatedTokens: tokens,
    };
    if (buckets.length === 0) return { ticket, headers: {} };

    const decision = await this.limiter.consume(buckets, this.clock.now());
    if (!decision) return { ticket: { tokenBuckets: [], estimatedTokens: 0 }, headers: {} }; // store unreachable: fail open
    const headers = rateHeaders(buckets, decision.buckets);
    if (decision.allowed) return { ticket, headers };

    // the refusing bucket that frees up last decides Retry-After and the message
    let worst = -1;
    decision.buckets.forEach((b, i) => {
      if (b.retryMs > 0 && (worst < 0 || b.retryMs > decision.buckets[worst].retryMs)) worst = i;
    });
    const b = buckets[worst];
    const state = decision.buckets[worst];
    const retryS = Math.max(1, Math.ceil(state.retryMs / 1000));
    this.events.rejected({ scope: b.scope, limit: b.kind, teamId: s.teamId, apiKeyId: s.apiKeyId });
    const who = b.scope === 'key' ? `API key ${s.apiKeyId}` : `team ${s.teamId}`;
    const unit = b.kind === 'requests' ? 'requests per min (RPM)' : 'tokens per min (TPM)';
    const requested = b.kind === 'requests' ? 1 : b.cost;
    const err = new ApiError(
      429,
      b.kind,
      `Rate limit reached for ${who} on ${unit}: Limit ${b.limit}, Remaining ${state.remaining}, Requested ${requested}. Please try again in ${retryS}s.`,
      'rate_limit_exceeded',
      null,
      { ...headers, 'retry-after': String(retryS) },
    );
    throw err;
  }

  /** Corrects the token buckets by (actual − estimated) once the request's real count is known. */
  settleTokens(ticket: RateTicket, actualTokens: number): Promise<void> {
    const delta = Math.round(actualTokens) - ticket.estimatedTokens;
    if (delta === 0 || ticket.tokenBuckets.length === 0) return Promise.resolve();
    const now = this.clock.now();
    return Promise.all(ticket.tokenBuckets.map((b) => this.limiter.adjust({ ...b, cost: delta }, now))).then(
      () => undefined,
    );
  }
}

/**
 * OpenAI's headers: x-ratelimit-{limit,remaining,reset}-{requests,tokens}. When both the key and
 * the team limit a kind, the one with fewer units remaining is reported. Reset is the time until the
 * bucket is full again, in seconds with up to three decimals and an "s" suffix (e.g. "1s", "0.25s").
 */
export function rateHeaders(buckets: Bucket[], states: BucketState[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const kind of ['requests', 'tokens'] as const) {
    let pick = -1;
    buckets.forEach((b, i) => {
      if (b.kind === kind && (pick < 0 || states[i].remaining < states[pick].remaining)) pick = i;
    });
    if (pick < 0) continue;
    out[`x-ratelimit-limit-${kind}`] = String(buckets[pick].limit);
    out[`x-ratelimit-remaining-${kind}`] = String(states[pick].remaining);
    out[`x-ratelimit-reset-${kind}`] = `${Number((states[pick].resetMs / 1000).toFixed(3))}s`;
  }
  return out;
}
