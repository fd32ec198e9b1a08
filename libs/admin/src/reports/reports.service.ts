import { Injectable } from '@nestjs/common';
import { Clock, microToRub } from '@app/common';
import { summaryRange, TeamsService } from '@app/billing';
import { ReportsRepository } from './reports.repository';
import { AllTeamsUsageDto, AllTeamsUsageQueryDto, TopUpActorDto, TopUpListDto } from './reports.dto';

const DAY_MS = 86_400_000;

/** The operator's reports: spend of every team by day and the top models; a team's top-ups with note and actor. */
@Injectable()
export class ReportsService {
  constructor(
    private readonly repo: ReportsRepository,
    private readonly teams: TeamsService,
    private readonly clock: Clock,
  ) {}

  async allTeamsUsage(q: AllTeamsUsageQueryDto): Promise<AllTeamsUsageDto> {
    const { from, to } = summaryRange(q, this.clock.now());
    const [days, models] = await Promise.all([
      this.repo.spendByTeamDay(from, to),
      this.repo.topModels(from, to, q.top ?? 10),
    ]);
    const perTeam = new Map<string, { team_id: string; team_name: string; requests: number; micro: number }>();
    for (const d of days) {
      const t = perTeam.get(d.teamId) ?? { team_id: d.teamId, team_name: d.teamName, requests: 0, micro: 0 };
      t.requests += d.requests;
      t.micro += d.spentMicro;
      perTeam.set(d.teamId, t);
    }
    const teams = [...perTeam.values()].sort((a, b) => b.micro - a.micro || a.team_name.localeCompare(b.team_name));
    return {
      object: 'usage.all_teams',
      from: new Date(from).toISOString(),
      to: new Date(to).toISOString(),
      days: days.map((d) => ({
        day: new Date(d.day * DAY_MS).toISOString().slice(0, 10),
        team_id: d.teamId,
        team_name: d.teamName,
        requests: d.requests,
        amount_rub: microToRub(d.spentMicro),
      })),
      teams: teams.map((t) => ({
        team_id: t.team_id,
        team_name: t.team_name,
        requests: t.requests,
        amount_rub: microToRub(t.micro),
      })),
      top_models: models.map((m) => ({
        model: m.model,
        requests: m.requests,
        total_tokens: m.totalTokens,
        amount_rub: microToRub(m.spentMicro),
      })),
      total_rub: microToRub(teams.reduce((a, t) => a + t.micro, 0)),
    };
  }

  /** A team's top-ups, newest first: amount, balance after, reference, the note and who made it. */
  async topUps(teamId: string, limit: number, before?: number): Promise<TopUpListDto> {
    await this.teams.get(teamId); // 404 for an unknown team
    const rows = await this.repo.topUps(teamId, limit + 1, before);
    const page = rows.slice(0, limit);
    const parsed = page.map((r) => parseDetails(r.details));
    const userIds = parsed.flatMap((p) => (p.actor?.type === 'user' && p.actor.id ? [p.actor.id] : []));
    const emails = await this.repo.emails([...new Set(userIds)]);
    return {
      object: 'list',
      data: page.map((r, i) => {
        const { note, actor } = parsed[i];
        return {
          id: r.id,
          amount_rub: microToRub(r.amountMicro),
          balance_after_rub: microToRub(r.balanceAfterMicro),
          reference: r.reference,
          note,
          actor: actor
            ? { ...actor, email: actor.type === 'user' && actor.id ? (emails.get(actor.id) ?? null) : null }
            : null,
          created_at: new Date(r.createdAt).toISOString(),
        };
      }),
      has_more: rows.length > limit,
      next_before: rows.length > limit ? page[page.length - 1].id : null,
    };
  }
}

/** The note and actor a top-up keeps in its ledger entry's details (JSON; absent on older entries). */
function parseDetails(details: string | null): { note: string | null; actor: Omit<TopUpActorDto, 'email'> | null } {
  if (!details) return { note: null, actor: null };
  try {
    const d = JSON.parse(details) as { note?: unknown; actor?: { type?: unknown; id?: unknown } | null };
    const actor =
      d.actor && typeof d.actor.type === 'string'
        ? { type: d.actor.type, id: typeof d.actor.id === 'string' ? d.actor.id : null }
        : null;
    return { note: typeof d.note === 'string' ? d.note : null, actor };
  } catch {
    return { note: null, actor: null };
  }
}
