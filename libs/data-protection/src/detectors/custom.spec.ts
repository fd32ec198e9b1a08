import { compileCustomPattern, detectPii, PatternRejectedError } from './index';
import { hasNestedQuantifier } from './custom';

describe('custom patterns', () => {
  it('finds matches and names them', () => {
    const emp = compileCustomPattern('employee_id', String.raw`EMP-\d{6}`);
    expect(detectPii('ids EMP-123456 and EMP-654321; not EMP-12', { customPatterns: [emp] })).toEqual([
      { type: 'custom', name: 'employee_id', start: 4, end: 14, value: 'EMP-123456' },
      { type: 'custom', name: 'employee_id', start: 19, end: 29, value: 'EMP-654321' },
    ]);
    // offsets are JavaScript string indices also after astral characters
    expect(detectPii('🙂 EMP-123456', { customPatterns: [emp] })[0]).toMatchObject({ start: 3, end: 13 });
  });

  it('does not run when "custom" is not among the entities asked for', () => {
    const emp = compileCustomPattern('employee_id', String.raw`EMP-\d{6}`);
    expect(detectPii('EMP-123456', { entities: ['email'], customPatterns: [emp] })).toEqual([]);
  });

  it.each([
    ['(a+)+$', /nests a repeated group/],
    ['(x*y*)*z', /nests a repeated group/],
    [String.raw`(\d+){2,}`, /nests a repeated group/],
    [String.raw`(a)\1`, /not a valid RE2 regular expression/],
    ['(?=a)b', /not a valid RE2 regular expression/],
    ['[a-', /not a valid RE2 regular expression/],
    ['a*', /matches the empty string/],
    ['', /is empty/],
    ['a'.repeat(501), /longer than 500/],
  ])('rejects %s', (regex, message) => {
    expect(() => compileCustomPattern('p', regex)).toThrow(PatternRejectedError);
    expect(() => compileCustomPattern('p', regex)).toThrow(message);
  });

  it('rejects a bad name', () => {
    expect(() => compileCustomPattern('', 'x')).toThrow(/name/);
    expect(() => compileCustomPattern('a'.repeat(65), 'x')).toThrow(/name/);
  });

  it('accepts bounded repetition inside a group', () => {
    expect(hasNestedQuantifier(String.raw`(?:\d{3}-){2}\d{4}`)).toBe(false);
    expect(hasNestedQuantifier(String.raw`[(+]+\d+`)).toBe(false);
    expect(hasNestedQuantifier(String.raw`(ab)+`)).toBe(false);
  });

  it('runs in linear time: a pattern that backtracks exponentially in a backtracking engine finishes on a long input', () => {
    // (a|aa)*b is exponential for backtracking engines on "aaaa…c"; nested-quantifier check does not catch it
    const p = compileCustomPattern('alt', '(a|aa)*b');
    expect(detectPii('a'.repeat(20_000) + 'c', { customPatterns: [p] })).toEqual([]);
    expect(detectPii('xx aab', { customPatterns: [p] })).toEqual([
      { type: 'custom', name: 'alt', start: 3, end: 6, value: 'aab' },
    ]);
  });
});
