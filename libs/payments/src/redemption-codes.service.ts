import { createHash, randomInt, randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { ApiError, Clock, microToRub, rubToMicro } from '@app/common';
import { AppConfig } from '@app/config';
import { BillingService } from '@app/billing';
import { LoginThrottleStore } from '@app/accounts';
import { CodeBatchListDto, CreateCodesDto, CreatedCodesDto, RedeemResultDto, RedemptionCodeDto } from './dto/codes.dto';
import { RedemptionCodeEntity } from './entities/redemption-code.entity';
import { RedemptionCodesRepository } from './redemption-codes.repository';

/** No 0/O, 1/I/L: a code read aloud or off paper is typed right. */
export const CODE_ALPHABET = '23456789ABCDEFGHJKMNPQRSTUVWXYZ';
export const CODE_LENGTH = 20;
const LIST_MAX = 5_000;

/** Who redeems: a user (or the operator token) from a client address. */
export interface Redeemer {
  userId: string | null;
  ip: string | undefined;
}

/** A new code: `RC-` and 20 characters of the unambiguous alphabet (≈ 99 bits). */
export function generateCode(): string {
  let s = '';
  for (let i = 0; i < CODE_LENGTH; i++) s += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  return `RC-${s}`;
}

/** The form a code is hashed in: upper case, without spaces or dashes after the prefix. */
export function normaliseCode(code: string): string {
  const s = code.toUpperCase().replace(/[\s-]/g, '');
  return s.startsWith('RC') ? `RC-${s.slice(2)}` : s;
}

export const hashCode = (code: string) => createHash('sha256').update(normaliseCode(code)).digest('hex');

/** Thrown inside the credit's transaction when the code is no longer usable: nothing commits. */
class CodeTaken extends Error {}

/**
 * Redemption codes: made by operators in batches (shown once, stored as SHA-256 hashes), redeemed
 * by a team's members into the balance — one ledger entry `code:<id>`, and the code marked used in
 * the same transaction under a conditional update, so a code credits one team once. Failed attempts
 * count per user and per client address in the sign-in throttle (LOGIN_MAX_FAILURES_PER_*).
 */
@Injectable()
export class RedemptionCodesService {
  private readonly logger = new Logger('RedemptionCodes');

  constructor(
    private readonly repo: RedemptionCodesRepository,
    private readonly billing: BillingService,
    private readonly throttle: LoginThrottleStore,
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  async create(dto: CreateCodesDto): Promise<CreatedCodesDto> {
    const now = this.clock.now();
    const expiresAt = dto.expires_at ? Date.parse(dto.expires_at) : null;
    if (expiresAt !== null && expiresAt <= now)
      throw ApiError.badRequest('expires_at must be in the future.', 'expires_at');
    const batchId = `rcb_${randomUUID().replace(/-/g, '')}`;
    const amountMicro = rubToMicro(dto.amount_rub);
    const made = Array.from({ length: dto.count }, () => {
      const code = generateCode();
      const row: RedemptionCodeEntity = {
        id: `rc_${randomUUID().replace(/-/g, '')}`,
        batchId,
        codeHash: hashCode(code),
        hint: code.slice(-4),
        amountMicro,
        note: dto.note ?? null,
        expiresAt,
        disabledAt: null,
        usedAt: null,
        usedByTeam: null,
        usedByUser: null,
        createdAt: now,
      };
      return { code, row };
    });
    await this.repo.insertMany(made.map((m) => m.row));
    return {
      batch_id: batchId,
      note: dto.note ?? null,
      codes: made.map((m) => ({ ...codeDto(m.row, now), code: m.code })),
    };
  }

  async list(): Promise<CodeBatchListDto> {
    const now = this.clock.now();
    const rows = await this.repo.listNewest(LIST_MAX);
    const batches = new Map<string, CodeBatchListDto['data'][number]>();
    for (const r of rows) {
      let b = batches.get(r.batchId);
      if (!b) {
        b = {
          batch_id: r.batchId,
          note: r.note,
          amount_rub: microToRub(r.amountMicro),
          created_at: new Date(r.createdAt).toISOString(),
          count: 0,
          used: 0,
          codes: [],
        };
        batches.set(r.batchId, b);
      }
      b.count++;
      if (r.usedAt !== null) b.used++;
      b.codes.push(codeDto(r, now));
    }
    return { object: 'list', data: [...batches.values()] };
  }

  async disable(id: string): Promise<RedemptionCodeDto> {
    const row = await this.repo.findById(id);
    if (!row) throw ApiError.notFound(`Redemption code ${id} not found.`, 'code_not_found', 'id');
    if (row.usedAt !== null) throw conflict('This code was used already.');
    const now = this.clock.now();
    if (row.disabledAt === null && !(await this.repo.disable(id, now))) throw conflict('This code was used already.');
    return codeDto((await this.repo.findById(id)) ?? row, now);
  }

  async redeem(teamId: string, code: string, who: Redeemer): Promise<RedeemResultDto> {
    const now = this.clock.now();
    const keys = [`redeem:u:${who.userId ?? 'operator'}`, `redeem:ip:${who.ip ?? 'unknown'}`];
    await this.countAttempt(keys, now);
    const row = await this.repo.findByHash(hashCode(code));
    const refused = this.refusal(row, now);
    if (refused || !row) throw refused ?? invalid();
    let out: { applied: boolean; balanceMicro: number };
    try {
      out = await this.billing.topUp(teamId, row.amountMicro, `code:${row.id}`, {
        details: JSON.stringify({ source: 'redemption_code', code_id: row.id, user_id: who.userId }),
        within: async (m) => {
          if (!(await this.repo.markUsedIn(m, row.id, teamId, who.userId, now))) throw new CodeTaken();
        },
      });
    } catch (err) {
      if (!(err instanceof CodeTaken)) throw err;
      out = { applied: false, balanceMicro: 0 };
    }
    if (!out.applied)
      throw this.refusal(await this.repo.findById(row.id), now) ?? conflict('This code was used already.');
    // a code that worked takes its own attempt back; earlier failures stay counted, as at sign-in
    await Promise.all(keys.map((k) => this.throttle.unhit(k, now)));
    this.logger.log({ teamId, codeId: row.id, creditedMicro: row.amountMicro }, 'redemption code used');
    return { team_id: teamId, credited_rub: microToRub(row.amountMicro), balance_rub: microToRub(out.balanceMicro) };
  }

  private refusal(row: RedemptionCodeEntity | null, now: number): ApiError | null {
    if (!row || row.disabledAt !== null) return invalid();
    if (row.usedAt !== null) return conflict('This code was used already.');
    if (row.expiresAt !== null && row.expiresAt <= now)
      return new ApiError(410, 'invalid_request_error', 'This code has expired.', 'code_expired', 'code');
    return null;
  }

  /**
   * Counts the attempt before the code is looked at (one atomic increment per key, like sign-in), so
   * a burst of guesses cannot all be evaluated; past the limit: 429, the code not even looked up.
   */
  private async countAttempt(keys: string[], now: number): Promise<void> {
    const cfg = this.config.accounts;
    const counted = await this.throttle.hit(keys, now);
    if (!counted) return; // the store cannot answer: not refused for it, as at sign-in
    const [user, ip] = counted;
    const waitMs = Math.max(
      user.count > cfg.loginMaxFailuresPerAccount ? user.resetMs : 0,
      ip.count > cfg.loginMaxFailuresPerIp ? ip.resetMs : 0,
    );
    if (waitMs > 0)
      throw ApiError.rateLimited(
        `Too many failed code attempts. Try again in ${Math.ceil(waitMs / 1000)} s.`,
        Math.ceil(waitMs / 1000),
      );
  }
}

const invalid = () => ApiError.notFound('No such redemption code.', 'code_invalid', 'code');
const conflict = (message: string) => new ApiError(409, 'invalid_request_error', message, 'code_used', 'code');

function codeDto(r: RedemptionCodeEntity, now: number): RedemptionCodeDto {
  const status =
    r.usedAt !== null
      ? 'used'
      : r.disabledAt !== null
        ? 'disabled'
        : r.expiresAt !== null && r.expiresAt <= now
          ? 'expired'
          : 'unused';
  return {
    id: r.id,
    hint: r.hint,
    amount_rub: microToRub(r.amountMicro),
    status,
    expires_at: r.expiresAt === null ? null : new Date(r.expiresAt).toISOString(),
    used_at: r.usedAt === null ? null : new Date(r.usedAt).toISOString(),
    used_by_team: r.usedByTeam,
  };
}
