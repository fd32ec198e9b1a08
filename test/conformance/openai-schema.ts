/**
 * Validates gateway responses against the schemas of OpenAI's published OpenAPI document
 * (test/conformance/openai-openapi.yaml, see README.md beside it) with ajv (JSON Schema 2020-12,
 * the dialect of OpenAPI 3.1). Each check records its violations; a suite asserts none at the end.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020, { ErrorObject, ValidateFunction } from 'ajv/dist/2020';
import { parse } from 'yaml';

type Json = Record<string, unknown>;

/**
 * OpenAPI-only keywords the document still carries: `nullable: true` (3.0 style) becomes a type
 * that admits null, so a member the spec declares nullable is not reported.
 */
function normalize(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(normalize);
  if (typeof node !== 'object' || node === null) return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node as Json)) out[k] = normalize(v);
  if (out.nullable === true) {
    delete out.nullable;
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    else if (Array.isArray(out.type) && !out.type.includes('null')) out.type = [...(out.type as string[]), 'null'];
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...(out.enum as unknown[]), null];
    if (out.type === undefined && out.enum === undefined) return { anyOf: [out, { type: 'null' }] };
  }
  return out;
}

export interface Violation {
  what: string;
  schema: string;
  errors: string[];
}

interface Loaded {
  ajv: Ajv2020;
  version: string;
  schemas: Record<string, Json>;
}

let shared: Loaded | undefined;

function load(): Loaded {
  if (shared) return shared;
  const doc = parse(readFileSync(join(__dirname, 'openai-openapi.yaml'), 'utf8')) as {
    info: { version: string };
    components: { schemas: Record<string, Json> };
  };
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false, logger: false });
  ajv.addSchema({ $id: 'openai', components: { schemas: normalize(doc.components.schemas) } });
  shared = { ajv, version: doc.info.version, schemas: doc.components.schemas };
  return shared;
}

function describeError(e: ErrorObject): string {
  return `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`;
}

/** Collects violations of every checked body or event; `assertNone` fails with all of them listed. */
export class Conformance {
  readonly violations: Violation[] = [];
  readonly checked: string[] = [];
  private readonly validators = new Map<string, ValidateFunction>();

  get specVersion(): string {
    return load().version;
  }

  private validator(schema: string): ValidateFunction {
    let v = this.validators.get(schema);
    if (!v) {
      const ajv = load().ajv;
      v = ajv.getSchema(`openai#/components/schemas/${schema}`);
      if (!v) throw new Error(`no schema ${schema} in the OpenAI document`);
      this.validators.set(schema, v);
    }
    return v;
  }

  /** Compiles the named schemas ahead of use (a large one takes seconds). */
  compile(...schemas: string[]): void {
    for (const s of schemas) this.validator(s);
  }

  /** Validates `body` against components.schemas[schema]; returns the errors (also recorded). */
  check(what: string, schema: string, body: unknown): string[] {
    const validate = this.validator(schema);
    this.checked.push(`${what} → ${schema}`);
    if (validate(body)) return [];
    const errors = (validate.errors ?? []).map(describeError);
    this.violations.push({ what, schema, errors });
    return errors;
  }

  /**
   * A stream event: validated against the union schema (ResponseStreamEvent), and against the
   * member whose `type` matches, so that a failure names the member instead of every branch.
   */
  checkEvent(what: string, union: string, event: Json): string[] {
    const member = this.memberFor(union, event.type);
    return this.check(`${what} ${String(event.type)}`, member ?? union, event);
  }

  private memberFor(union: string, type: unknown): string | undefined {
    const schemas = load().schemas;
    const refs = ((schemas[union].anyOf ?? schemas[union].oneOf ?? []) as Json[])
      .map((r) => String(r.$ref ?? '').replace('#/components/schemas/', ''))
      .filter(Boolean);
    return refs.find((name) => {
      const props = schemas[name]?.properties as Record<string, Json> | undefined;
      const t = props?.type;
      return (t?.enum as unknown[] | undefined)?.includes(type) || t?.const === type;
    });
  }

  report(): string {
    return this.violations.map((v) => `${v.what} (${v.schema}):\n  ${v.errors.join('\n  ')}`).join('\n');
  }
}
