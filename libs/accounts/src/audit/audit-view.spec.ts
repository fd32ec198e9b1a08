import { csvField } from '../audit-log.service';
import type { AuditEntryEntity } from './audit-entry.entity';
import type { AuditNames } from './audit-names.repository';
import { auditEntryView, detailsText, namesWanted } from './audit-view';

const entry = (over: Partial<AuditEntryEntity>): AuditEntryEntity => ({
  seq: 1,
  id: 'e1',
  at: Date.UTC(2026, 10, 25),
  actorType: 'user',
  actorId: 'u1',
  ip: null,
  userAgent: null,
  teamId: 't1',
  action: 'api_key.create',
  targetType: 'api_key',
  targetId: 'k1',
  diff: null,
  ...over,
});

const names: AuditNames = {
  users: new Map([
    ['u1', { email: 'olga@acme.test', name: 'Olga' }],
    ['u2', { email: 'dev@acme.test', name: '' }],
  ]),
  keys: new Map([['k1', { name: null, prefix: 'sk-abcd' }]]),
  teams: new Map([['t1', 'Acme']]),
  invitations: new Map([['i1', 'new@acme.test']]),
};

describe('audit view', () => {
  it('asks for the names of actors, teams, targets and the account accepting an invitation', () => {
    const want = namesWanted([
      entry({}),
      entry({ actorType: 'api_key', actorId: 'k9', targetType: 'user', targetId: 'u3' }),
      entry({
        action: 'invitation.accept',
        targetType: 'invitation',
        targetId: 'i1',
        diff: JSON.stringify({ before: null, after: { user_id: 'u2', role: 'member' } }),
      }),
    ]);
    expect([...want.users].sort()).toEqual(['u1', 'u2', 'u3']);
    expect([...want.keys].sort()).toEqual(['k1', 'k9']);
    expect([...want.teams]).toEqual(['t1']);
    expect([...want.invitations]).toEqual(['i1']);
  });

  it('names the actor, team and target; a key without a name by its prefix', () => {
    const v = auditEntryView(entry({}), names);
    expect(v.actor).toEqual({ type: 'user', id: 'u1', email: 'olga@acme.test', name: 'Olga', label: 'Olga' });
    expect(v.team).toEqual({ id: 't1', name: 'Acme' });
    expect(v.target).toEqual({ type: 'api_key', id: 'k1', label: 'sk-abcd…' });
  });

  it('a user without a name is labelled by e-mail; unknown ids stay unnamed', () => {
    expect(auditEntryView(entry({ actorId: 'u2' }), names).actor.label).toBe('dev@acme.test');
    const gone = auditEntryView(entry({ actorId: 'u404', teamId: 't404', targetId: 'k404' }), names);
    expect(gone.actor).toMatchObject({ email: null, label: null });
    expect(gone.team).toEqual({ id: 't404', name: null });
    expect(gone.target?.label).toBeNull();
  });

  it('reads amounts, e-mails and roles out of the diff', () => {
    const top = auditEntryView(
      entry({
        actorType: 'operator_token',
        actorId: null,
        action: 'team.top_up',
        targetType: 'team',
        targetId: 't1',
        diff: JSON.stringify({
          before: null,
          after: { amount_rub: 7.5, reference: 'inv-7', note: 'paid', balance_rub: 107.5 },
        }),
      }),
      names,
    );
    expect(top.details).toMatchObject({ amount_rub: 7.5, balance_rub: 107.5, reference: 'inv-7', note: 'paid' });
    expect(top.actor.label).toBeNull();
    const role = auditEntryView(
      entry({
        action: 'member.role_change',
        targetType: 'user',
        targetId: 'u2',
        diff: JSON.stringify({ before: { role: 'member' }, after: { role: 'admin' } }),
      }),
      names,
    );
    expect(role.details).toMatchObject({ email: 'dev@acme.test', role: 'admin', previous_role: 'member' });
    expect(detailsText(role.details)).toBe('email: dev@acme.test; role: admin; previous_role: member');
    const removed = auditEntryView(
      entry({
        action: 'member.remove',
        targetType: 'user',
        targetId: 'u2',
        diff: JSON.stringify({ before: { role: 'viewer' }, after: null }),
      }),
      names,
    );
    expect(removed.details).toMatchObject({ role: null, previous_role: 'viewer' });
    const failed = auditEntryView(entry({ actorType: 'anonymous', actorId: 'who@x.test', teamId: null }), names);
    expect(failed.actor).toMatchObject({ email: 'who@x.test', label: 'who@x.test' });
    expect(failed.team).toBeNull();
  });
});

describe('CSV fields', () => {
  it.each([
    ['plain', 'plain'],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['two\nlines', '"two\nlines"'],
    ['=1+1', "'=1+1"],
    ['+7 900', "'+7 900"],
    ['-2', "'-2"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['=HYPERLINK("x","y")', '"\'=HYPERLINK(""x"",""y"")"'],
  ])('%j → %s', (input, out) => {
    expect(csvField(input)).toBe(out);
  });

  it('numbers as they are, null as an empty cell', () => {
    expect(csvField(1500.5)).toBe('1500.5');
    expect(csvField(-7)).toBe('-7');
    expect(csvField(null)).toBe('');
    expect(csvField(undefined)).toBe('');
  });
});
