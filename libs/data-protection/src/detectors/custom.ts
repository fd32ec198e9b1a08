/**
 * Custom patterns from a data policy. They run on RE2 (re2js: a linear-time engine without backtracking), so no
 * pattern can stall the event loop whatever the text; patterns RE2 cannot express (backreferences, lookaround) are
 * rejected. Nested unbounded quantifiers such as `(a+)+` — the shape of catastrophic backtracking in ordinary engines,
 * and almost always a mistake — are rejected too, as are patterns that match the empty string.
 */
import { RE2JS } from 're2js';
import { match, PiiMatch } from './types';

export class PatternRejectedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PatternRejectedError';
  }
}

export interface CompiledCustomPattern {
  name: string;
  /** the pattern as given */
  source: string;
  regex: RE2JS;
}

export const MAX_PATTERN_LENGTH = 500;
/** At most this many matches of one pattern are reported per text (bounds the work on a hostile text). */
export const MAX_MATCHES_PER_PATTERN = 1000;
const NAME = /^[A-Za-z0-9_][A-Za-z0-9_ .-]{0,63}$/;

/**
 * True when a quantified group contains an unbounded quantifier (`(a+)+`, `(x*y)*`, `(\d+){2,}` …).
 * Scans the pattern once, skipping escapes and character classes.
 */
export function hasNestedQuantifier(pattern: string): boolean {
  const stack: boolean[] = []; // per open group: does it contain an unbounded quantifier?
  let lastGroupUnbounded = false; // the group that just closed contained one
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    let unbounded = false;
    if (c === '\\') {
      i++;
      lastGroupUnbounded = false;
      continue;
    }
    if (c === '[') {
      for (i++; i < pattern.length && pattern[i] !== ']'; i++) if (pattern[i] === '\\') i++;
      lastGroupUnbounded = false;
      continue;
    }
    if (c === '(') {
      stack.push(false);
      lastGroupUnbounded = false;
      continue;
    }
    if (c === ')') {
      lastGroupUnbounded = stack.pop() ?? false;
      if (lastGroupUnbounded && stack.length) stack[stack.length - 1] = true;
      continue;
    }
    if (c === '*' || c === '+') unbounded = true;
    else if (c === '{') {
      const m = /^\{(\d*)(,?)(\d*)\}/.exec(pattern.slice(i));
      if (m) {
        unbounded = m[2] === ',' && m[3] === '';
        if (lastGroupUnbounded && (unbounded || Number(m[3] || m[1]) > 1)) return true;
        i += m[0].length - 1;
        if (unbounded && stack.length) stack[stack.length - 1] = true;
        lastGroupUnbounded = false;
        continue;
      }
    }
    if (unbounded) {
      if (lastGroupUnbounded) return true;
      if (stack.length) stack[stack.length - 1] = true;
    }
    lastGroupUnbounded = false;
  }
  return false;
}

/** Validates and compiles a policy's custom pattern; throws PatternRejectedError with the reason. */
export function compileCustomPattern(name: string, regex: string): CompiledCustomPattern {
  if (typeof name !== 'string' || !NAME.test(name))
    throw new PatternRejectedError(
      'custom pattern name must be 1-64 characters: letters, digits, spaces, "_", "-" or "."',
    );
  if (typeof regex !== 'string' || regex.length === 0) throw new PatternRejectedError(`pattern "${name}" is empty`);
  if (regex.length > MAX_PATTERN_LENGTH)
    throw new PatternRejectedError(`pattern "${name}" is longer than ${MAX_PATTERN_LENGTH} characters`);
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(regex);
  } catch (err) {
    const detail = err instanceof Error ? err.message.replace(/^error parsing regexp: /, '') : String(err);
    throw new PatternRejectedError(
      `pattern "${name}" is not a valid RE2 regular expression (${detail}); backreferences and lookaround are not supported`,
    );
  }
  if (hasNestedQuantifier(regex))
    throw new PatternRejectedError(
      `pattern "${name}" nests a repeated group inside a repetition (like "(a+)+"), the shape of catastrophic backtracking; rewrite it without the nesting`,
    );
  if (compiled.matches('')) throw new PatternRejectedError(`pattern "${name}" matches the empty string`);
  return { name, source: regex, regex: compiled };
}

/** Every non-empty match of the custom patterns (at most MAX_MATCHES_PER_PATTERN per pattern). */
export function customMatches(text: string, patterns: readonly CompiledCustomPattern[]): PiiMatch[] {
  const out: PiiMatch[] = [];
  for (const p of patterns) {
    const m = p.regex.matcher(text);
    for (let n = 0; n < MAX_MATCHES_PER_PATTERN && m.find(); n++)
      if (m.end() > m.start()) out.push({ ...match('custom', text, m.start(), m.end()), name: p.name });
  }
  return out;
}
