import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiError, Clock } from '@app/common';
import { AppConfig } from '@app/config';
import { BillingRepository, ChargeRecord, ReserveOutcome, SettleOutcome, TopUpOutcome } from './billing.repository';
import { BillingService } from './billing.service';
import { BillingSpool } from './billing-spool';
import { TeamEntity } from './entities/team.entity';

/** In-memory stand-in for the repository: the same rules, no database (unit tier). */
class InMemoryBillingRepository {
  teams = new Map<string, { balance: number; reserved: number }>();
  reservations = new Map<string, { teamId: string; amount: number; status: string; expiresAt: number }>();
  ledger: { teamId: string; amount: number; balanceAfter: number; record?: ChargeRecord }[] = [];

  async reserve(r: { id: string; teamId: string; amountMicro: number; expiresAt: number }): Promise<ReserveOutcome> {
    const t = this.teams.get(r.teamId);
    if (!t || t.balance - t.reserved < r.amountMicro)
      return {
        ok: false,
        team: t ? ({ id: r.teamId, balanceMicro: t.balance, reservedMicro: t.reserved } as TeamEntity) : null,
      };
    t.reserved += r.amountMicro;
    this.reservations.set(r.id, { teamId: r.teamId, amount: r.amountMicro, status: 'open', expiresAt: r.expiresAt });
    return { ok: true };
  }
  down = false;
  async settle(id: string, actual: number, record: ChargeRecord): Promise<SettleOutcome> {
    if (this.down) throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const r = this.reservations.get(id);
    if (!r || (r.status !== 'open' && r.status !== 'expired')) return { ok: false, status: r?.status ?? null };
    const charged = actual;
    const held = r.status === 'open' ? r.amount : 0;
    r.status = 'settled';
    const t = this.teams.get(r.teamId)!;
    t.balance -= charged;
    t.reserved -= held;
    this.ledger.push({ teamId: r.teamId, amount: -charged, balanceAfter: t.balance, record });
    return { ok: true, chargedMicro: charged, balanceAfterMicro: t.balance, ledgerId: this.ledger.length };
  }
  async extend(ids: string[], expiresAt: number): Promise<void> {
    for (const id of ids) {
      const r = this.reservations.get(id);
      if (r?.status === 'open') r.expiresAt = expiresAt;
    }
  }
  async release(id: string, _now: number, status = 'released'): Promise<boolean> {
    if (this.down) throw Object.assign(new Error('Connection terminated unexpectedly'), {});
    const r = this.reservations.get(id);
    if (!r || r.status !== 'open') return false;
    r.status = status;
    this.teams.get(r.teamId)!.reserved -= r.amount;
    return true;
  }
  async findExpiredOpen(now: number): Promise<string[]> {
    return [...this.reservations.entries()]
      .filter(([, r]) => r.status === 'open' && r.expiresAt < now)
      .map(([id]) => id);
  }
  async topUp(teamId: string, amount: number): Promise<TopUpOutcome> {
    const t = this.teams.get(teamId);
    if (!t) return null;
    t.balance += amount;
    return { applied: true, balanceMicro: t.balance };
  }
}

class FixedClock extends Clock {
  t = 1_000_000;
  override now(): number {
    return this.t;
  }
}

describe('BillingService (unit, in-memory repository)', () => {
  let repo: InMemoryBillingRepository;
  let clock: FixedClock;
  let billing: BillingService;

  beforeEach(() => {
    repo = new InMemoryBillingRepository();
    repo.teams.set('t1', { balance: 1_000_000, reserved: 0 }); // 1 RUB
    clock = new FixedClock();
    billing = make();
  });
  const dataDir = mkdtempSync(join(tmpdir(), 'billing-unit-'));
  const make = () =>
    new BillingService(
      repo as unknown as BillingRepository,
      clock,
      AppConfig.fromEnv({
        RESERVATION_TTL_SECONDS: '60',
        BILLING_CREDIT_GRANTS: 'false',
        DATA_DIR: join(dataDir, String(Math.random())),
      }),
    );

  it('reserves against balance minus holds and refuses with 402 beyond it', async () => {
    await billing.reserve('t1', 600_000, 'a');
    const err = await billing.reserve('t1', 600_000, 'b').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(402);
    expect((err as ApiError).message).toMatch(
      /0\.40 RUB available \(balance 1(\.00)? RUB, 0\.60 RUB held by requests in flight\), this request requires up to 0\.60 RUB/,
    );
  });

  it('rounds fractional worst cases up and never reserves a negative amount', async () => {
    const r = await billing.reserve('t1', 10.2, 'a');
    expect(r.amountMicro).toBe(11);
    expect((await billing.reserve('t1', -5, 'b')).amountMicro).toBe(0);
  });

  it('settle charges the actual cost even above the hold (counted), and only once', async () => {
    const r = await billing.reserve('t1', 500_000, 'a');
    const s = await billing.settle(r, 700_000, {
      endpoint: '/x',
      model: 'm',
      apiKeyId: 'k',
      promptTokens: 3,
      completionTokens: 4,
    });
    expect(s.chargedMicro).toBe(700_000);
    expect(repo.teams.get('t1')).toEqual({ balance: 300_000, reserved: 0 });
    expect(billing.stats()).toMatchObject({ overruns: 1, overrunMicro: 200_000 });
    expect(repo.ledger[0].record).toMatchObject({ requestId: 'a', endpoint: '/x', totalTokens: 7 });
    await expect(
      billing.settle(r, 1, { endpoint: '/x', model: 'm', apiKeyId: 'k', promptTokens: 0, completionTokens: 0 }),
    ).rejects.toMatchObject({ status: 503 });
    expect(repo.ledger).toHaveLength(1);
  });

  it('tells charge listeners after a committed charge only; a throwing listener does not fail the charge', async () => {
    const told: [string, string | null][] = [];
    billing.onCharged(() => {
      throw new Error('listener bug');
    });
    billing.onCharged((teamId, apiKeyId) => told.push([teamId, apiKeyId]));
    const details = { endpoint: '/x', model: 'm', apiKeyId: 'k', promptTokens: 1, completionTokens: 1 };
    const r = await billing.reserve('t1', 100, 'a');
    expect((await billing.settle(r, 50, details)).chargedMicro).toBe(50);
    expect(told).toEqual([['t1', 'k']]);
    await billing.release(await billing.reserve('t1', 100, 'b'));
    await expect(billing.settle(r, 50, details)).rejects.toMatchObject({ status: 503 });
    expect(told).toHaveLength(1);
  });

  it('release frees the hold without a ledger entry; shutdown releases what is still open', async () => {
    const a = await billing.reserve('t1', 300_000, 'a');
    await billing.reserve('t1', 300_000, 'b');
    await billing.release(a);
    expect(repo.teams.get('t1')?.reserved).toBe(300_000);
    await billing.onApplicationShutdown();
    expect(repo.teams.get('t1')?.reserved).toBe(0);
    expect(repo.ledger).toHaveLength(0);
  });

  it('sweeps holds past their expiry, but keeps the holds of requests still running here', async () => {
    await make().reserve('t1', 300_000, 'crashed'); // reserved by a replica that died
    const live = await billing.reserve('t1', 200_000, 'long-stream');
    expect(await billing.sweepExpired()).toBe(0);
    clock.t += 60_001;
    expect(await billing.sweepExpired()).toBe(1);
    expect(repo.teams.get('t1')?.reserved).toBe(200_000);
    expect(repo.reservations.get(live.id)?.status).toBe('open');
  });

  it('a balance overdrawn by an excess refuses every new request, even a free one, until topped up', async () => {
    const r = await billing.reserve('t1', 1_000_000, 'a');
    await billing.settle(r, 1_300_000, {
      endpoint: '/x',
      model: 'm',
      apiKeyId: null,
      promptTokens: 1,
      completionTokens: 1,
    });
    expect(repo.teams.get('t1')?.balance).toBe(-300_000);
    await expect(billing.reserve('t1', 0, 'free')).rejects.toMatchObject({ status: 402 });
    await billing.topUp('t1', 400_000, null);
    expect((await billing.reserve('t1', 0, 'free')).amountMicro).toBe(0);
  });

  it('spools to the BillingSpool it is given (injected), not to one of its own', async () => {
    const spool = new BillingSpool(mkdtempSync(join(tmpdir(), 'billing-spool-')));
    const own = new BillingService(
      repo as unknown as BillingRepository,
      clock,
      AppConfig.fromEnv({
        RESERVATION_TTL_SECONDS: '60',
        BILLING_CREDIT_GRANTS: 'false',
        DATA_DIR: join(dataDir, String(Math.random())),
      }),
      undefined,
      undefined,
      undefined,
      spool,
    );
    const r = await own.reserve('t1', 100_000, 'x');
    repo.down = true;
    await own.release(r);
    expect(spool.read()).toEqual([{ op: 'release', reservationId: r.id, at: clock.now() }]);
    expect(own.stats().spoolPending).toBe(1);
  });

  it('database away: settles and releases are spooled to disk and applied when it returns, once', async () => {
    const a = await billing.reserve('t1', 400_000, 'a');
    const b = await billing.reserve('t1', 300_000, 'b');
    repo.down = true;
    const s = await billing.settle(a, 250_000, {
      endpoint: '/x',
      model: 'm',
      apiKeyId: null,
      promptTokens: 1,
      completionTokens: 1,
    });
    expect(s).toEqual({ chargedMicro: 250_000, balanceAfterMicro: null, ledgerEntryId: null });
    await billing.release(b);
    expect(billing.stats()).toMatchObject({ spooled: 2, spoolPending: 2 });
    await billing.replaySpool(); // still down: nothing applied, nothing lost
    expect(billing.stats().spoolPending).toBe(2);
    expect(repo.ledger).toHaveLength(0);
    repo.down = false;
    // a restarted replica on the same data dir replays what the old one spooled
    await billing.replaySpool();
    expect(billing.stats().spoolPending).toBe(0);
    expect(repo.teams.get('t1')).toEqual({ balance: 750_000, reserved: 0 });
    expect(repo.ledger).toHaveLength(1);
    await billing.replaySpool();
    expect(repo.ledger).toHaveLength(1);
  });

  describe('meter: hold → run → exact charge, or release', () => {
    const details = { endpoint: '/x', model: 'm', apiKeyId: null, promptTokens: 1, completionTokens: 1 };

    it('charges the exact cost of a finished run and frees the hold', async () => {
      const { result, charged } = await billing.meter({
        teamId: 't1',
        requestId: 'r',
        holdMicro: 500_000,
        run: async () => 42,
        charge: (r) => ({ costMicro: r * 1000, details }),
      });
      expect(result).toBe(42);
      expect(charged?.chargedMicro).toBe(42_000);
      expect(repo.teams.get('t1')).toEqual({ balance: 958_000, reserved: 0 });
    });

    it('a failed run releases the hold and rethrows; nothing is charged', async () => {
      await expect(
        billing.meter({
          teamId: 't1',
          requestId: 'r',
          holdMicro: 500_000,
          run: async () => Promise.reject(new Error('upstream down')),
          charge: () => ({ costMicro: 1, details }),
        }),
      ).rejects.toThrow('upstream down');
      expect(repo.teams.get('t1')).toEqual({ balance: 1_000_000, reserved: 0 });
      expect(repo.ledger).toHaveLength(0);
    });

    it('a run that failed after billable work charges that part, then rethrows', async () => {
      await expect(
        billing.meter({
          teamId: 't1',
          requestId: 'r',
          holdMicro: 500_000,
          run: async () => Promise.reject(new Error('cut mid-stream')),
          charge: () => null,
          chargeOnFailure: () => ({ costMicro: 7_000, details }),
        }),
      ).rejects.toThrow('cut mid-stream');
      expect(repo.teams.get('t1')).toEqual({ balance: 993_000, reserved: 0 });
    });

    it('a hold the balance cannot cover is refused (402) before the work runs', async () => {
      let ran = false;
      await expect(
        billing.meter({
          teamId: 't1',
          requestId: 'r',
          holdMicro: 2_000_000,
          run: async () => (ran = true),
          charge: () => null,
        }),
      ).rejects.toMatchObject({ status: 402 });
      expect(ran).toBe(false);
    });

    it('charge null releases the hold (e.g. nothing billable happened)', async () => {
      const out = await billing.meter({
        teamId: 't1',
        requestId: 'r',
        holdMicro: 100,
        run: async () => 'x',
        charge: () => null,
      });
      expect(out.charged).toBeNull();
      expect(repo.teams.get('t1')).toEqual({ balance: 1_000_000, reserved: 0 });
    });
  });
});
