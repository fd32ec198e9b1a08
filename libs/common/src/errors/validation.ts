import { ValidationError, ValidationPipe } from '@nestjs/common';
import { getMetadataStorage } from 'class-validator';
import { ApiError } from './api-error';

/** Dotted path of the first failing field, e.g. "messages[1].role". */
export function firstValidationProblem(
  errors: ValidationError[],
  parent = '',
): { param: string; message: string } | null {
  for (const e of errors) {
    const isIndex = /^\d+$/.test(e.property);
    const path = parent === '' ? e.property : isIndex ? `${parent}[${e.property}]` : `${parent}.${e.property}`;
    if (e.constraints && Object.keys(e.constraints).length > 0) {
      // a field that is absent only fails when it is required (optional ones are skipped): say so
      if (e.value === undefined) return { param: path, message: `${path} is required.` };
      const message = firstConstraint(e.constraints).replace(new RegExp(`^${escapeRegex(e.property)}\\b`), path);
      return { param: path, message };
    }
    if (e.children && e.children.length > 0) {
      const nested = firstValidationProblem(e.children, path);
      if (nested) return nested;
    }
  }
  return null;
}

/**
 * The message to show when a field fails several rules: what the value IS comes first ("must be an
 * integer number" for `"x"`, not "must not be less than 1"). Decorators register bottom-up, so the
 * order of `constraints` is no guide; class-validator's type and presence checks are the `is…` rules.
 */
function firstConstraint(constraints: Record<string, string>): string {
  const keys = Object.keys(constraints);
  const key = keys.find((k) => k.startsWith('is')) ?? keys[0];
  return constraints[key];
}

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

type MetadataLookup = (
  target: unknown,
  schema: string,
  always: boolean,
  strictGroups: boolean,
  groups?: string[],
) => unknown[];
type Grouping = (metadata: unknown[]) => Record<string, unknown[]>;
let memoized = false;

/**
 * class-validator recomputes, for every object it validates (nested ones too), the rule list of the
 * object's class — filtering its own rules and scanning EVERY registered class for parents — and
 * regroups it by property. Both depend only on the class and the options, not on the request, so
 * they are computed once per (class, options) here and reused: the rules of a hot DTO are looked
 * up, not reflected, per request. Registering a rule later (a lazily loaded DTO) clears the memo.
 * The results are never mutated by class-validator (its executor only reads them).
 */
export function memoizeValidationMetadata(): void {
  if (memoized) return;
  memoized = true;
  const storage = getMetadataStorage() as unknown as {
    getTargetValidationMetadatas: MetadataLookup;
    groupByPropertyName: Grouping;
    addValidationMetadata: (m: unknown) => void;
  };
  const lookup = storage.getTargetValidationMetadatas.bind(storage);
  const group = storage.groupByPropertyName.bind(storage);
  const add = storage.addValidationMetadata.bind(storage);
  let rules = new Map<unknown, Map<string, unknown[]>>();
  let grouped = new WeakMap<unknown[], Record<string, unknown[]>>();
  storage.addValidationMetadata = (m) => {
    rules = new Map();
    grouped = new WeakMap();
    add(m);
  };
  storage.getTargetValidationMetadatas = (target, schema, always, strictGroups, groups) => {
    const key = `${schema}|${always}|${strictGroups}|${groups ? groups.join(',') : ''}`;
    let byOptions = rules.get(target);
    if (!byOptions) rules.set(target, (byOptions = new Map()));
    let found = byOptions.get(key);
    if (!found) byOptions.set(key, (found = lookup(target, schema, always, strictGroups, groups)));
    return found;
  };
  storage.groupByPropertyName = (metadata) => {
    let g = grouped.get(metadata);
    if (!g) grouped.set(metadata, (g = group(metadata)));
    return g;
  };
}

/** The global ValidationPipe: whitelist + transform, errors as 400 with `param` naming the field. */
export function createValidationPipe(): ValidationPipe {
  memoizeValidationMetadata();
  return new ValidationPipe({
    whitelist: true,
    transform: true,
    forbidUnknownValues: false,
    // every rule of a failing field is checked (valid input runs them all anyway), so the message can
    // name the type problem first (see firstConstraint)
    exceptionFactory: (errors: ValidationError[]) => {
      const p = firstValidationProblem(errors);
      return ApiError.badRequest(p ? p.message : 'Invalid request body.', p?.param ?? null, 'invalid_value');
    },
  });
}
