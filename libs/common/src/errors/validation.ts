import {
  applyDecorators,
  ArgumentMetadata,
  CanActivate,
  ExecutionContext,
  UseGuards,
  ValidationError,
  ValidationPipe,
} from '@nestjs/common';
import type { MetadataStorage as TransformerMetadata } from 'class-transformer/types/MetadataStorage';
import { getMetadataStorage } from 'class-validator';
import { ApiError } from './api-error';
import { installValidationPlans } from './validation-plans';

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

// class-transformer keeps its @Type metadata here (the path @nestjs/mapped-types reads it from too)
type TransformerStorage = { defaultMetadataStorage: TransformerMetadata };
// eslint-disable-next-line @typescript-eslint/no-require-imports
const transformerStorage = require('class-transformer/cjs/storage') as TransformerStorage;
const transformerMetadata = transformerStorage.defaultMetadataStorage;

/** Where @nestjs/swagger's @ApiProperty keeps a property's options, and the list of documented properties. */
const SWAGGER_PROPERTY = 'swagger/apiModelProperties';
const SWAGGER_PROPERTIES = 'swagger/apiModelPropertiesArray';

type Ctor = abstract new (...args: never[]) => unknown;

/** Swagger's `nullable: true` on a body field: the declaration that null is a meaningful value there. */
function declaredNullable(cls: Ctor, property: string): boolean | undefined {
  const meta = Reflect.getMetadata(SWAGGER_PROPERTY, cls.prototype as object, property) as
    { nullable?: boolean } | undefined;
  return meta?.nullable;
}

const declaredByClass = new WeakMap<Ctor, Set<string>>();

/** The body fields a DTO declares (Swagger or class-validator), computed once per class. */
function declaredProperties(cls: Ctor): Set<string> {
  let names = declaredByClass.get(cls);
  if (names) return names;
  names = new Set<string>();
  declaredByClass.set(cls, names);
  const swagger = Reflect.getMetadata(SWAGGER_PROPERTIES, cls.prototype as object) as string[] | undefined;
  for (const n of swagger ?? []) names.add(n.replace(/^:/, ''));
  for (const m of getMetadataStorage().getTargetValidationMetadatas(cls, '', false, false)) names.add(m.propertyName);
  return names;
}

/** The DTO class a nested field is transformed into (class-transformer's @Type), if any. */
function nestedClass(cls: Ctor, property: string): Ctor | undefined {
  const meta = transformerMetadata.findTypeMetadata(cls as unknown as new () => unknown, property);
  if (!meta || meta.options?.discriminator) return undefined;
  const t = meta.typeFunction() as unknown;
  return typeof t === 'function' && t !== Object && t !== String && t !== Number && t !== Boolean
    ? (t as Ctor)
    : undefined;
}

/**
 * The first field of a request body that is null although its DTO does not declare it nullable
 * (`@ApiProperty({ nullable: true })`). `@IsOptional()` lets null through every rule, so without this
 * a `{"name": null}` reaches the service and the database's NOT NULL constraint (a 500); here it is a
 * 400 naming the field. Nested DTOs (class-transformer's `@Type`) are checked the same way; fields the
 * DTO does not declare are left to the whitelist.
 */
export function firstForbiddenNull(value: unknown, cls: Ctor, parent = ''): string | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const declared = declaredProperties(cls);
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    if (!declared.has(key)) continue;
    const path = parent === '' ? key : `${parent}.${key}`;
    if (v === null) {
      if (declaredNullable(cls, key)) continue;
      return path;
    }
    const inner = typeof v === 'object' ? nestedClass(cls, key) : undefined;
    if (!inner) continue;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        if (v[i] === null) return `${path}[${i}]`;
        const found = firstForbiddenNull(v[i], inner, `${path}[${i}]`);
        if (found) return found;
      }
    } else {
      const found = firstForbiddenNull(v, inner, path);
      if (found) return found;
    }
  }
  return null;
}

/** The first top-level member of a JSON body that its DTO does not declare (Swagger or class-validator). */
export function firstUnknownMember(value: unknown, cls: Ctor): string | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const declared = declaredProperties(cls);
  return Object.keys(value as Record<string, unknown>).find((key) => !declared.has(key)) ?? null;
}

/**
 * Refuses a body member the DTO does not declare with a 400 `unknown_parameter` naming it. The
 * global ValidationPipe's whitelist would strip it silently, so a client misspelling a field or
 * relying on one the gateway does not implement would get an answer that ignored it. A guard, the
 * route's last: it runs after authentication and before the pipes, so it sees the body as the
 * client sent it, before any upstream call (a guard rather than an interceptor, because a route
 * with any interceptor pays for an RxJS pipeline on every request).
 */
class UnknownMembersGuard implements CanActivate {
  constructor(private readonly cls: Ctor) {}

  canActivate(context: ExecutionContext): boolean {
    const body = context.switchToHttp().getRequest<{ body?: unknown }>().body;
    const member = firstUnknownMember(body, this.cls);
    if (member !== null)
      throw ApiError.badRequest(`Unrecognized request argument supplied: ${member}`, member, 'unknown_parameter');
    return true;
  }
}

/** Handler decorator: the JSON body may carry only the members `cls` declares (see UnknownMembersGuard). */
export function RefuseUnknownMembers(cls: Ctor): MethodDecorator {
  return applyDecorators(UseGuards(new UnknownMembersGuard(cls)));
}

/** ValidationPipe that first refuses null in body fields not declared nullable (see firstForbiddenNull). */
class GatewayValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const cls = metadata.metatype as Ctor | undefined;
    if (metadata.type === 'body' && cls && this.toValidate(metadata)) {
      const param = firstForbiddenNull(value, cls);
      if (param) throw ApiError.badRequest(`${param} must not be null.`, param, 'invalid_value');
    }
    try {
      return await super.transform(value, metadata);
    } catch (err) {
      // validator's byte-length check (IsEmail, …) encodes the string and throws on a lone surrogate
      if (err instanceof URIError)
        throw ApiError.badRequest('A text field is not valid Unicode (a lone surrogate).', null, 'invalid_value');
      throw err;
    }
  }
}

/** The global ValidationPipe: whitelist + transform, errors as 400 with `param` naming the field. */
export function createValidationPipe(): ValidationPipe {
  memoizeValidationMetadata();
  installValidationPlans();
  return new GatewayValidationPipe({
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
