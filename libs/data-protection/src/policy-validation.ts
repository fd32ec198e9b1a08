import { ApiError } from '@app/common';
import { compileCustomPattern, PatternRejectedError } from './detectors';
import { OPEN_POLICY, PII_ENTITY_TYPES, type DataPolicy, type KeyDataPolicy } from './policy';

/**
 * A policy as given (a PUT body or a key's `data_policy`) made canonical: defaults filled in
 * (`fill`), repeats dropped, custom patterns compiled — a rejected one is 400 invalid_pattern on
 * `<param>.custom_patterns[i].regex`, a repeated pattern name 400 as well.
 */
export function canonicalPolicy(given: KeyDataPolicy, param: string): KeyDataPolicy {
  const out: KeyDataPolicy = {};
  if (given.residency !== undefined) out.residency = given.residency;
  if (given.pii !== undefined) out.pii = given.pii;
  if (given.pii_scope !== undefined) out.pii_scope = given.pii_scope;
  if (given.entities !== undefined) out.entities = PII_ENTITY_TYPES.filter((e) => given.entities!.includes(e));
  if (given.allow_list !== undefined) out.allow_list = [...new Set(given.allow_list.map((s) => s.trim()))];
  if (given.custom_patterns !== undefined) {
    const names = new Set<string>();
    out.custom_patterns = given.custom_patterns.map((p, i) => {
      const at = `${param}.custom_patterns[${i}]`;
      const name = p.name.trim();
      if (names.has(name))
        throw ApiError.badRequest(`${at}.name: "${name}" is used twice.`, `${at}.name`, 'invalid_value');
      names.add(name);
      try {
        compileCustomPattern(name, p.regex);
      } catch (err) {
        if (!(err instanceof PatternRejectedError)) throw err;
        throw ApiError.badRequest(`${at}.regex is rejected: ${err.message}.`, `${at}.regex`, 'invalid_pattern');
      }
      return { name, regex: p.regex };
    });
  }
  return out;
}

/** A full policy from a canonical partial one: what it leaves out takes the open default. */
export function withDefaults(p: KeyDataPolicy): DataPolicy {
  return {
    residency: p.residency ?? OPEN_POLICY.residency,
    pii: p.pii ?? OPEN_POLICY.pii,
    pii_scope: p.pii_scope ?? OPEN_POLICY.pii_scope,
    entities: p.entities ?? OPEN_POLICY.entities,
    custom_patterns: p.custom_patterns ?? [],
    allow_list: p.allow_list ?? [],
  };
}
