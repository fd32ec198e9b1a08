import { BudgetPeriod, SummaryGroup, SummaryRow } from './billing-records';
import { BillingStatements } from './billing-statements';

/** What keys and teams spent: the budget counters of keys, and sums and summaries of the ledger. */
export class SpendQueries extends BillingStatements {
  /**
   * A key's budgets changed: its counters of past periods go, those of the current periods have
   * their spend recomputed from the ledger (holds of requests in flight are kept).
   */
  async resyncSpend(apiKeyId: string, current: BudgetPeriod[]): Promise<void> {
    const { ledger, spend } = this.T;
    await this.tx.run(async (m) => {
      const keep = current.map((b) => b.period);
      const rows = (await this.sql.exec(`SELECT period FROM ${spend} WHERE api_key_id = $1`, [apiKeyId], m)).rows;
      for (const row of rows)
        if (!keep.includes(String(row.period)))
          await this.sql.exec(`DELETE FROM ${spend} WHERE api_key_id = $1 AND period = $2`, [apiKeyId, row.period], m);
      for (const b of current) {
        await this.sql.exec(
          `UPDATE ${spend} SET spent_micro = (SELECT COALESCE(-SUM(amount_micro), 0) FROM ${ledger} WHERE api_key_id = $1 AND kind = 'charge' AND created_at >= $3 AND created_at < $4)
           WHERE api_key_id = $1 AND period = $2`,
          [apiKeyId, b.period, b.start, b.end],
          m,
        );
      }
    });
  }

  /** Spend and holds of a key in the given periods (missing rows: nothing recorded yet). */
  async spendOf(apiKeyId: string, periods: string[]): Promise<Map<string, { spentMicro: number; heldMicro: number }>> {
    const out = new Map<string, { spentMicro: number; heldMicro: number }>();
    if (!periods.length) return out;
    const rows = await this.spendRows.find({ where: periods.map((period) => ({ apiKeyId, period })) });
    for (const r of rows) out.set(r.period, { spentMicro: r.spentMicro, heldMicro: r.heldMicro });
    return out;
  }

  /** µRUB a key was charged since each of the given instants (from the ledger). */
  async spentSince(apiKeyId: string, since: number[]): Promise<number[]> {
    const out: number[] = [];
    for (const t of since) {
      const r = (
        await this.sql.exec(
          `SELECT COALESCE(-SUM(amount_micro), 0) AS spent FROM ${this.T.ledger} WHERE api_key_id = $1 AND kind = 'charge' AND created_at >= $2`,
          [apiKeyId, t],
        )
      ).rows[0];
      out.push(Number(r?.spent ?? 0));
    }
    return out;
  }

  /** What a team's charges came to since each instant of `since` (µRUB, one sum per instant). */
  async teamSpentSince(teamId: string, since: number[]): Promise<number[]> {
    const out: number[] = [];
    for (const t of since) {
      const r = (
        await this.sql.exec(
          `SELECT COALESCE(-SUM(amount_micro), 0) AS spent FROM ${this.T.ledger} WHERE team_id = $1 AND kind = 'charge' AND created_at >= $2`,
          [teamId, t],
        )
      ).rows[0];
      out.push(Number(r?.spent ?? 0));
    }
    return out;
  }

  /** Requests, tokens and RUB of a team's charges in [from, to), grouped in the database. */
  async summary(teamId: string, from: number, to: number, groupBy: SummaryGroup): Promise<SummaryRow[]> {
    const expr = { model: 'model', endpoint: 'endpoint', key: 'api_key_id', day: 'created_at / 86400000' }[groupBy];
    const rows = (
      await this.sql.exec(
        `SELECT ${expr} AS grp, COUNT(*) AS requests, COALESCE(SUM(prompt_tokens), 0) AS prompt_tokens, COALESCE(SUM(completion_tokens), 0) AS completion_tokens,
                COALESCE(SUM(total_tokens), 0) AS total_tokens, COALESCE(-SUM(amount_micro), 0) AS spent_micro
         FROM ${this.T.ledger} WHERE team_id = $1 AND kind = 'charge' AND created_at >= $2 AND created_at < $3
         GROUP BY ${expr} ORDER BY ${expr}`,
        [teamId, from, to],
      )
    ).rows;
    return rows.map((r) => ({
      group: r.grp === null || r.grp === undefined ? null : groupBy === 'day' ? Number(r.grp) : String(r.grp),
      requests: Number(r.requests),
      promptTokens: Number(r.prompt_tokens),
      completionTokens: Number(r.completion_tokens),
      totalTokens: Number(r.total_tokens),
      spentMicro: Number(r.spent_micro),
    }));
  }
}
