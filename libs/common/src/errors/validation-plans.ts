import { ValidationTypes } from 'class-validator';

/**
 * class-validator's executor, for every object it validates, re-sorts each property's rules into
 * five lists (`filter` × 5) and builds an error object for the property before it even knows whether
 * the property is to be checked. A chat-completions body declares ≈ 40 members, nearly all optional
 * and absent, so most of that work (and ≈ 15 % of the bytes a request allocates) is for members
 * whose only rule, `@IsOptional`, says "skip". Here the sorting is done once per DTO class and
 * property (the rule lists are memoized per class, see `memoizeValidationMetadata`), and a property
 * skipped by a conditional rule builds no error object: class-validator would have built an empty
 * one and removed it again (`stripEmptyErrors`) before returning, so what `validate()` returns is the
 * same. Every rule still runs through class-validator's own methods (`customValidations`,
 * `nestedValidations`, `mapContexts`, `whitelist`).
 *
 * It replaces two methods of class-validator's `ValidationExecutor`, so it is tied to that class's
 * internals: it is installed only for the versions it was written against (0.14 and 0.15), and
 * `validation-plans.spec.ts` checks that `validate()` returns the same errors with and without it.
 */

interface Rule {
  type: string;
  constraints: unknown[];
}

/** Checks one property's value against its rules, adding what fails to `errors`. */
type PerformValidations = (
  this: Executor,
  object: object,
  value: unknown,
  propertyName: string,
  defined: Rule[],
  rules: Rule[],
  errors: unknown[],
) => void;

interface Executor {
  validatorOptions?: {
    groups?: string[];
    strictGroups?: boolean;
    always?: boolean;
    forbidUnknownValues?: boolean;
    enableDebugMessages?: boolean;
    whitelist?: boolean;
    skipUndefinedProperties?: boolean;
    skipNullProperties?: boolean;
    skipMissingProperties?: boolean;
  };
  metadataStorage: {
    getTargetValidationMetadatas(
      target: unknown,
      schema: string | undefined,
      always: boolean,
      strictGroups: boolean,
      groups?: string[],
    ): Rule[];
    groupByPropertyName(rules: Rule[]): Record<string, Rule[]>;
  };
  awaitingPromises: Promise<unknown>[];
  execute(object: object, targetSchema: string | undefined, errors: unknown[]): void;
  whitelist(object: object, grouped: Record<string, Rule[]>, errors: unknown[]): void;
  performValidations: PerformValidations;
  generateValidationError(object: object, value: unknown, propertyName: string): { constraints: object };
  customValidations(object: object, value: unknown, rules: Rule[], error: object): void;
  nestedValidations(value: unknown, rules: Rule[], error: object): void;
  mapContexts(object: object, value: unknown, rules: Rule[], error: object): void;
}

/** One property's rules, sorted once. */
interface PropertyPlan {
  name: string;
  /** `@IsDefined` (runs even when the value is missing) */
  defined: Rule[];
  /** every other rule but the whitelist marker */
  rules: Rule[];
  /** a `@ValidatePromise` rule is among them */
  promise: boolean;
}

/** The rule kinds `performValidations` runs, from one property's `rules`. */
interface RuleKinds {
  custom: Rule[];
  nested: Rule[];
  conditional: Rule[];
}

/** executor prototype → how to put its own methods back */
const installed = new WeakMap<object, () => void>();
const plans = new WeakMap<Record<string, Rule[]>, PropertyPlan[]>();
const kinds = new WeakMap<Rule[], RuleKinds>();

function planOf(grouped: Record<string, Rule[]>): PropertyPlan[] {
  let plan = plans.get(grouped);
  if (!plan) {
    plan = Object.keys(grouped).map((name) => {
      const all = grouped[name];
      const rules = all.filter((r) => r.type !== ValidationTypes.IS_DEFINED && r.type !== ValidationTypes.WHITELIST);
      return {
        name,
        defined: all.filter((r) => r.type === ValidationTypes.IS_DEFINED),
        rules,
        promise: rules.some((r) => r.type === ValidationTypes.PROMISE_VALIDATION),
      };
    });
    plans.set(grouped, plan);
  }
  return plan;
}

function kindsOf(rules: Rule[]): RuleKinds {
  let k = kinds.get(rules);
  if (!k) {
    k = {
      custom: rules.filter((r) => r.type === ValidationTypes.CUSTOM_VALIDATION),
      nested: rules.filter((r) => r.type === ValidationTypes.NESTED_VALIDATION),
      conditional: rules.filter((r) => r.type === ValidationTypes.CONDITIONAL_VALIDATION),
    };
    kinds.set(rules, k);
  }
  return k;
}

/** The versions whose executor these replacements mirror. */
export function supportedClassValidator(version: string): boolean {
  return /^0\.1[45]\./.test(version);
}

/**
 * Installs the sorted-once plans into class-validator's executor (once; a later call returns the
 * same uninstaller). Returns a function that puts the original methods back (for the equivalence tests), or null when
 * the installed class-validator is not a version this mirrors (then nothing is changed).
 */
export function installValidationPlans(): (() => void) | null {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { version } = require('class-validator/package.json') as { version: string };
  if (!supportedClassValidator(version)) return null;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { ValidationExecutor } = require('class-validator/cjs/validation/ValidationExecutor') as {
    ValidationExecutor: { prototype: Executor };
  };
  const proto = ValidationExecutor.prototype;
  if (installed.has(proto)) return installed.get(proto)!;
  const originalExecute = proto.execute;
  const originalPerform = proto.performValidations;

  const execute = function (this: Executor, object: object, targetSchema: string | undefined, errors: unknown[]) {
    const o = this.validatorOptions;
    const forbidUnknownValues = o?.forbidUnknownValues !== false;
    const rules = this.metadataStorage.getTargetValidationMetadatas(
      object.constructor,
      targetSchema,
      o?.always ?? false,
      o?.strictGroups ?? false,
      o?.groups,
    );
    // the cases where class-validator reports something other than rule results: its own code
    if ((forbidUnknownValues && rules.length === 0) || o?.enableDebugMessages === true)
      return originalExecute.call(this, object, targetSchema, errors);
    const grouped = this.metadataStorage.groupByPropertyName(rules);
    if (o?.whitelist) this.whitelist(object, grouped, errors);
    for (const p of planOf(grouped)) {
      const value = (object as Record<string, unknown>)[p.name];
      if (p.promise && value instanceof Promise) {
        this.awaitingPromises.push(
          value.then((resolved) => this.performValidations(object, resolved, p.name, p.defined, p.rules, errors)),
        );
      } else this.performValidations(object, value, p.name, p.defined, p.rules, errors);
    }
  };

  const performValidations: PerformValidations = function (object, value, propertyName, defined, rules, errors) {
    const { custom, nested, conditional } = kindsOf(rules);
    // every conditional rule is asked, as class-validator does (map, then reduce)
    let check = true;
    for (const c of conditional)
      check = Boolean((c.constraints[0] as (o: object, v: unknown) => boolean)(object, value)) && check;
    // skipped: class-validator's error for it would stay empty and be stripped before validate() returns
    if (!check) return;
    const error = this.generateValidationError(object, value, propertyName);
    errors.push(error);
    this.customValidations(object, value, defined, error);
    this.mapContexts(object, value, defined, error);
    const o = this.validatorOptions;
    if (value === undefined && o?.skipUndefinedProperties === true) return;
    if (value === null && o?.skipNullProperties === true) return;
    if ((value === null || value === undefined) && o?.skipMissingProperties === true) return;
    this.customValidations(object, value, custom, error);
    this.nestedValidations(value, nested, error);
    this.mapContexts(object, value, rules, error);
    this.mapContexts(object, value, custom, error);
  };

  proto.execute = execute;
  proto.performValidations = performValidations;
  const uninstall = (): void => {
    proto.execute = originalExecute;
    proto.performValidations = originalPerform;
    installed.delete(proto);
  };
  installed.set(proto, uninstall);
  return uninstall;
}
