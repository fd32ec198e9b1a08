import request from 'supertest';
import { ADMIN_TOKEN } from './test-app';

/** Small helpers over the admin API for test set-up. */
export class AdminClient {
  constructor(private readonly url: string) {}

  async createTeam(name: string, balanceRub: number): Promise<{ id: string; name: string; balance_rub: number }> {
    const res = await request(this.url)
      .post('/api/v1/admin/teams')
      .set('authorization', `Bearer ${ADMIN_TOKEN}`)
      .send({ name, balance_rub: balanceRub });
    if (res.status !== 201) throw new Error(`createTeam: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  }

  async createKey(teamId: string, name?: string): Promise<{ id: string; api_key: string; prefix: string }> {
    const res = await request(this.url)
      .post(`/api/v1/admin/teams/${teamId}/api-keys`)
      .set('authorization', `Bearer ${ADMIN_TOKEN}`)
      .send(name ? { name } : {});
    if (res.status !== 201) throw new Error(`createKey: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  }

  /** A team with `balanceRub` and one API key. */
  async teamWithKey(balanceRub: number, name = 'team'): Promise<{ teamId: string; apiKey: string; keyId: string }> {
    const team = await this.createTeam(name, balanceRub);
    const key = await this.createKey(team.id);
    return { teamId: team.id, apiKey: key.api_key, keyId: key.id };
  }

  async balance(apiKey: string): Promise<number> {
    const res = await request(this.url).get('/api/v1/balance').set('api-key', apiKey);
    if (res.status !== 200) throw new Error(`balance: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.balance_rub;
  }

  async topUp(teamId: string, amountRub: number, reference?: string): Promise<{ balance_rub: number }> {
    const res = await request(this.url)
      .post(`/api/v1/admin/teams/${teamId}/top-ups`)
      .set('authorization', `Bearer ${ADMIN_TOKEN}`)
      .send({ amount_rub: amountRub, ...(reference ? { reference } : {}) });
    if (res.status !== 200 && res.status !== 201) throw new Error(`top-up: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  }
}
