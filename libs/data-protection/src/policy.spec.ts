import { effectivePolicy, keyPolicyOver, looserThan, OPEN_POLICY, piiApplies, residencyAllows } from './policy';

describe('data policy', () => {
  const team = {
    ...OPEN_POLICY,
    pii: 'mask' as const,
    entities: ['email' as const, 'phone' as const],
    allow_list: ['a', 'b'],
  };

  it('a key may be stricter than its team, never looser', () => {
    expect(looserThan(team, keyPolicyOver(team, { pii: 'block', residency: 'ru_only' }))).toBeNull();
    expect(looserThan(team, keyPolicyOver(team, { pii: 'off' }))?.field).toBe('pii');
    expect(looserThan({ ...team, residency: 'ru_only' }, keyPolicyOver(team, { residency: 'any' }))?.field).toBe(
      'residency',
    );
    expect(looserThan(team, keyPolicyOver(team, { entities: ['email'] }))?.field).toBe('entities');
    expect(looserThan(team, keyPolicyOver(team, { allow_list: ['a', 'c'] }))?.field).toBe('allow_list');
    expect(looserThan(team, keyPolicyOver(team, { allow_list: ['a'] }))).toBeNull();
  });

  it('the effective policy is the stricter of team and key, field by field', () => {
    const eff = effectivePolicy(team, {
      residency: 'ru_only',
      pii: 'block',
      entities: ['passport'],
      allow_list: ['a'],
    });
    expect(eff).toMatchObject({ residency: 'ru_only', pii: 'block', allow_list: ['a'] });
    expect(eff.entities.sort()).toEqual(['email', 'passport', 'phone']);
    expect(effectivePolicy(null, null)).toEqual(OPEN_POLICY);
    expect(effectivePolicy(team, null)).toBe(team);
  });

  it('residency and scope by jurisdiction', () => {
    expect(residencyAllows({ ...OPEN_POLICY, residency: 'ru_only' }, 'foreign')).toBe(false);
    expect(residencyAllows({ ...OPEN_POLICY, residency: 'ru_only' }, 'ru')).toBe(true);
    expect(piiApplies(team, 'ru')).toBe(false);
    expect(piiApplies(team, 'foreign')).toBe(true);
    expect(piiApplies({ ...team, pii_scope: 'all_providers' }, 'ru')).toBe(true);
    expect(piiApplies(OPEN_POLICY, 'foreign')).toBe(false);
  });
});
