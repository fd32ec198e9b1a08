import { Injectable } from '@nestjs/common';
import { Clock } from '@app/common';
import { AppConfig } from '@app/config';
import { RequestLogBodies, TeamsService } from '@app/billing';

const DAY_MS = 86_400_000;
/** how long a team's settings are reused before they are read again (a change reaches every replica within it) */
export const SETTINGS_TTL_MS = 10_000;

export interface TeamLogSettings {
  level: RequestLogBodies;
  retentionMs: number;
  bodyRetentionMs: number;
}

/**
 * The request-log settings of each team (stored on the team: `request_log_bodies` and the two
 * retentions), cached in process for SETTINGS_TTL_MS. A read that fails (database away) answers the
 * last known settings, or the defaults: the log never fails a request. A change made through this
 * replica is seen at once, one made through another replica within SETTINGS_TTL_MS.
 */
@Injectable()
export class RequestLogSettings {
  private readonly cache = new Map<string, { at: number; settings: TeamLogSettings }>();
  private readonly loading = new Map<string, Promise<TeamLogSettings>>();
  /** bumped by every forget: a read that started before it does not fill the cache */
  private epoch = 0;

  constructor(
    private readonly teams: TeamsService,
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {
    // a change made through this replica applies to its next request; other replicas read it within the TTL
    teams.onChange((teamId) => this.forget(teamId));
  }

  get defaults(): TeamLogSettings {
    const c = this.config.requestLog;
    return { level: 'metadata', retentionMs: c.retentionDays * DAY_MS, bodyRetentionMs: c.bodyRetentionDays * DAY_MS };
  }

  /** The cached settings when fresh (no I/O), else undefined. */
  peek(teamId: string): TeamLogSettings | undefined {
    const hit = this.cache.get(teamId);
    return hit && this.clock.now() - hit.at < SETTINGS_TTL_MS ? hit.settings : undefined;
  }

  /** Never rejects. */
  get(teamId: string): Promise<TeamLogSettings> {
    const fresh = this.peek(teamId);
    if (fresh) return Promise.resolve(fresh);
    let p = this.loading.get(teamId);
    if (!p) {
      p = this.load(teamId).finally(() => this.loading.delete(teamId));
      this.loading.set(teamId, p);
    }
    return p;
  }

  /** Drops the cached settings of a team (after this replica changed them). */
  forget(teamId: string): void {
    this.epoch++;
    this.cache.delete(teamId);
    this.loading.delete(teamId);
  }

  private async load(teamId: string): Promise<TeamLogSettings> {
    const d = this.defaults;
    const epoch = this.epoch;
    try {
      const t = await this.teams.get(teamId);
      const settings: TeamLogSettings = {
        level: t.requestLogBodies,
        retentionMs: t.requestLogRetentionDays ? t.requestLogRetentionDays * DAY_MS : d.retentionMs,
        bodyRetentionMs: t.requestLogBodyRetentionDays ? t.requestLogBodyRetentionDays * DAY_MS : d.bodyRetentionMs,
      };
      if (this.cache.size > 100_000) this.cache.clear();
      if (epoch === this.epoch) this.cache.set(teamId, { at: this.clock.now(), settings });
      return settings;
    } catch {
      return this.cache.get(teamId)?.settings ?? d;
    }
  }
}
