import request from 'supertest';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import { admin, as, Browser, joinTeam, signIn } from './accounts-helpers';

const PASSWORD = 'correct horse battery staple';

interface Entry {
  id: string;
  action: string;
  actor_type: string;
  actor_id: string | null;
  team_id: string | null;
  target_id: string | null;
  actor: { type: string; id: string | null; email: string | null; name: string | null; label: string | null };
  team: { id: string; name: string | null } | null;
  target: { type: string | null; id: string | null; label: string | null } | null;
  details: Record<string, unknown>;
}

/** RFC 4180 parser: quoted fields with doubled quotes and line breaks. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i++;
    } else cell += c;
  }
  if (cell !== '' || row.length > 0) {
    row.push(cell);
    rows.push(row);
  }
  return rows;
}

describe(`audit log with readable identities on ${backendKind()}`, () => {
  let t: TestApp;
  let teamId: string;
  let otherTeam: string;
  let owner: Browser;
  let keyId: string;

  beforeAll(async () => {
    t = await createTestApp({});
    teamId = (await admin(request(t.url).post('/api/v1/admin/teams')).send({ name: 'Acme Robotics', balance_rub: 0 }))
      .body.id;
    otherTeam = (await admin(request(t.url).post('/api/v1/admin/teams')).send({ name: 'Globex' })).body.id;
    const first = await admin(request(t.url).post(`/api/v1/teams/${teamId}/invitations`)).send({
      email: 'olga@acme.test',
      role: 'owner',
    });
    await request(t.url)
      .post(`/api/v1/invitations/${first.body.token}/accept`)
      .send({ name: 'Olga Owner', password: PASSWORD });
    owner = await signIn(t.url, 'olga@acme.test', PASSWORD);
    // the owner invites a colleague, creates a key, changes the colleague's role; the operator tops up
    const inv = await as(t.url, owner)
      .post(`/api/v1/teams/${teamId}/invitations`)
      .send({ email: 'dev@acme.test', role: 'member' });
    expect(inv.status).toBe(201);
    const acc = await request(t.url)
      .post(`/api/v1/invitations/${inv.body.token}/accept`)
      .send({ name: 'Dev', password: PASSWORD });
    expect(acc.status).toBe(200);
    const key = await as(t.url, owner).post(`/api/v1/teams/${teamId}/api-keys`).send({ name: 'backend-prod' });
    expect(key.status).toBe(201);
    keyId = key.body.id;
    const dev = (await as(t.url, owner).get(`/api/v1/teams/${teamId}/members`)).body.data.find(
      (m: { email: string }) => m.email === 'dev@acme.test',
    );
    const role = await as(t.url, owner).patch(`/api/v1/teams/${teamId}/members/${dev.user_id}`).send({ role: 'admin' });
    expect(role.status).toBe(200);
    const top = await admin(request(t.url).post(`/api/v1/admin/teams/${teamId}/top-ups`)).send({
      amount_rub: 1500.5,
      reference: 'inv-42',
      note: '=HYPERLINK("http://evil.test","pay")',
    });
    expect(top.status).toBe(200);
    await admin(request(t.url).post(`/api/v1/admin/teams/${otherTeam}/top-ups`)).send({ amount_rub: 1 });
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  const log = async (query: string): Promise<{ data: Entry[]; next_cursor: number | null }> => {
    const res = await admin(request(t.url).get(`/api/v1/audit-log?${query}`));
    expect(res.status).toBe(200);
    return res.body;
  };

  it('every record names its actor, team and target, and carries readable details', async () => {
    const { data } = await log(`team_id=${teamId}&limit=1000`);
    const created = data.find((e) => e.action === 'api_key.create')!;
    expect(created.actor).toEqual({
      type: 'user',
      id: owner.userId,
      email: 'olga@acme.test',
      name: 'Olga Owner',
      label: 'Olga Owner',
    });
    expect(created.team).toEqual({ id: teamId, name: 'Acme Robotics' });
    expect(created.target).toEqual({ type: 'api_key', id: keyId, label: 'backend-prod' });
    // the stored fields stay as they were
    expect(created).toMatchObject({ actor_type: 'user', actor_id: owner.userId, team_id: teamId, target_id: keyId });

    const invited = data.find((e) => e.action === 'invitation.create')!;
    expect(invited.target?.label).toBe('dev@acme.test');
    expect(invited.details).toMatchObject({ email: 'dev@acme.test', role: 'member' });
    const accepted = data.find((e) => e.action === 'invitation.accept')!;
    expect(accepted.actor).toMatchObject({ email: 'dev@acme.test', label: 'Dev' });
    expect(accepted.details).toMatchObject({ email: 'dev@acme.test', role: 'member' });
    const promoted = data.find((e) => e.action === 'member.role_change')!;
    expect(promoted.target?.label).toBe('dev@acme.test');
    expect(promoted.details).toMatchObject({ email: 'dev@acme.test', role: 'admin', previous_role: 'member' });
    const topUp = data.find((e) => e.action === 'team.top_up')!;
    expect(topUp.actor).toMatchObject({ type: 'operator_token', email: null, label: null });
    expect(topUp.target?.label).toBe('Acme Robotics');
    expect(topUp.details).toMatchObject({ amount_rub: 1500.5, balance_rub: 1500.5, reference: 'inv-42' });

    // no record of the team page is left with a bare id where a name exists
    for (const e of data) {
      expect(e.team?.name).toBe('Acme Robotics');
      if (e.actor_type === 'user') expect(e.actor.email).toMatch(/@acme\.test$/);
    }
  });

  it('a failed sign-in names the e-mail tried; filtering by a person finds their records and those sign-ins', async () => {
    await request(t.url).post('/api/v1/auth/login').send({ email: 'olga@acme.test', password: 'wrong password!' });
    const mine = await log(`actor_email=${encodeURIComponent('OLGA@acme.test')}&limit=1000`);
    expect(mine.data.length).toBeGreaterThan(2);
    expect(mine.data.every((e) => e.actor.email === 'olga@acme.test')).toBe(true);
    const failed = mine.data.find((e) => e.action === 'auth.login_failed')!;
    expect(failed.actor).toMatchObject({ type: 'anonymous', email: 'olga@acme.test', label: 'olga@acme.test' });
    expect(mine.data.some((e) => e.action === 'api_key.create')).toBe(true);
    expect((await log('actor_email=nobody@acme.test')).data).toEqual([]);
    // object type and action filters, a team filter for operators
    const keys = await log(`target_type=api_key&team_id=${teamId}`);
    expect(keys.data.length).toBeGreaterThan(0);
    expect(keys.data.every((e) => e.target?.type === 'api_key')).toBe(true);
    const others = await log(`team_id=${otherTeam}&action=team.top_up`);
    expect(others.data.map((e) => e.team?.name)).toEqual(['Globex']);
  });

  it('cursor pages neither repeat nor skip records while new ones are written', async () => {
    const all = (await log(`team_id=${teamId}&limit=1000`)).data.map((e) => e.id);
    const seen: string[] = [];
    let cursor: number | null = null;
    let n = 0;
    do {
      const page: { data: Entry[]; next_cursor: number | null } = await log(
        `team_id=${teamId}&limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      );
      seen.push(...page.data.map((e) => e.id));
      cursor = page.next_cursor;
      // a change between two pages: it is newer than every record being paged
      await as(t.url, owner)
        .post(`/api/v1/teams/${teamId}/api-keys`)
        .send({ name: `during-${n++}` });
    } while (cursor !== null);
    expect(seen).toEqual(all);
    expect((await admin(request(t.url).get('/api/v1/audit-log?limit=1001'))).status).toBe(400);
    expect((await admin(request(t.url).get('/api/v1/audit-log?cursor=abc'))).status).toBe(400);
  });

  it('exports every matching record as RFC 4180 CSV with names, details and formulas defused', async () => {
    const res = await admin(request(t.url).get(`/api/v1/audit-log/export.csv?team_id=${teamId}`));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    expect(res.headers['content-disposition']).toContain('attachment');
    const rows = parseCsv(res.text);
    const header = rows[0];
    expect(header).toEqual([
      'id',
      'at',
      'team_id',
      'team',
      'actor_type',
      'actor_id',
      'actor',
      'actor_email',
      'action',
      'target_type',
      'target_id',
      'target',
      'amount_rub',
      'email',
      'role',
      'details',
      'ip',
      'user_agent',
    ]);
    const all = (await log(`team_id=${teamId}&limit=1000`)).data;
    expect(rows.length - 1).toBe(all.length);
    const col = (row: string[], name: string) => row[header.indexOf(name)];
    const top = rows.find((r) => col(r, 'action') === 'team.top_up')!;
    expect(col(top, 'team')).toBe('Acme Robotics');
    expect(col(top, 'amount_rub')).toBe('1500.5');
    // the note started with "=": a spreadsheet must not run it
    expect(col(top, 'details')).toContain('note: =HYPERLINK');
    expect(res.text).not.toMatch(/(^|,)"?=HYPERLINK/m);
    const key = rows.find((r) => col(r, 'action') === 'api_key.create' && col(r, 'target') === 'backend-prod')!;
    expect(col(key, 'actor_email')).toBe('olga@acme.test');
    expect(col(key, 'actor')).toBe('Olga Owner');
    // filters apply to the export too
    const byPerson = parseCsv(
      (await admin(request(t.url).get(`/api/v1/audit-log/export.csv?team_id=${teamId}&actor_email=dev@acme.test`)))
        .text,
    );
    expect(byPerson.length).toBeGreaterThan(1);
    expect(byPerson.slice(1).every((r) => col(r, 'actor_email') === 'dev@acme.test')).toBe(true);
  });

  it('a cell that starts with = + - @ is prefixed so spreadsheets show it as text', async () => {
    const named = await as(t.url, owner).post(`/api/v1/teams/${teamId}/api-keys`).send({ name: '@SUM(1+1)' });
    expect(named.status).toBe(201);
    const res = await admin(
      request(t.url).get(
        `/api/v1/audit-log/export.csv?team_id=${teamId}&action=api_key.create&target=${named.body.id}`,
      ),
    );
    const rows = parseCsv(res.text);
    expect(rows).toHaveLength(2);
    expect(rows[1][rows[0].indexOf('target')]).toBe("'@SUM(1+1)");
    expect(rows[1].some((c) => /^[=+\-@]/.test(c))).toBe(false);
  });

  it('team admins read and export their team only; members and other teams are refused', async () => {
    const dev = await signIn(t.url, 'dev@acme.test', PASSWORD); // admin since the role change
    const own = await as(t.url, dev).get(`/api/v1/audit-log?team_id=${teamId}`);
    expect(own.status).toBe(200);
    expect(own.body.data.every((e: Entry) => e.team?.name === 'Acme Robotics')).toBe(true);
    expect((await as(t.url, dev).get(`/api/v1/audit-log/export.csv?team_id=${teamId}`)).status).toBe(200);
    expect((await as(t.url, dev).get(`/api/v1/audit-log/export.csv?team_id=${otherTeam}`)).status).toBe(404);
    expect((await as(t.url, dev).get('/api/v1/audit-log/export.csv')).status).toBe(400);
    const member = await joinTeam(t.url, teamId, 'member@acme.test', 'member', PASSWORD);
    const refused = await as(t.url, member).get(`/api/v1/audit-log/export.csv?team_id=${teamId}`);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('insufficient_role');
    expect((await request(t.url).get(`/api/v1/audit-log/export.csv?team_id=${teamId}`)).status).toBe(401);
  });
});
