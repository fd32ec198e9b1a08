/**
 * The response contract, checked on every answer an in-test app gives: each 2xx JSON body, and each
 * event of a 2xx Server-Sent Events stream, is validated (ajv) against the schema docs/openapi.json
 * declares for its operation, status and content type. Undeclared members, mistyped members, missing
 * required members, undeclared operations or statuses are violations. createTestApp installs the
 * recorder as the app's first middleware; the e2e setup file (contract-setup.ts) fails the test during
 * which a violation was recorded, and closing an app fails on any that are still pending.
 *
 * The document is read as committed; test/http/openapi.e2e-spec.ts and the CI drift check make sure it
 * is the one the code generates (`npm run openapi`).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NextFunction, Request, Response } from 'express';
import Ajv, { ValidateFunction } from 'ajv';
import { createParser } from 'eventsource-parser';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Schema = { [k: string]: Json };

interface MediaType {
  schema?: Schema;
}
interface OpenApiDocument {
  paths: Record<string, Record<string, { responses?: Record<string, { content?: Record<string, MediaType> }> }>>;
  components?: { schemas?: Record<string, Schema> };
}

const DOCUMENT_PATH = join(__dirname, '../../docs/openapi.json');
/** Served by the Swagger UI itself, not operations of the API. */
const NOT_OPERATIONS = /^\/docs(?:-json|-yaml|\/.*)?$/;

/**
 * OpenAPI 3.0 schema → JSON Schema as ajv reads it, made strict: an object that lists its properties
 * admits no others (free-form maps declare none, or additionalProperties); `nullable` becomes a null
 * alternative; oneOf becomes anyOf (alternatives that overlap are not a contract violation).
 */
export function strictSchema(schema: Json): Json {
  if (Array.isArray(schema)) return schema.map(strictSchema);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Schema = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === 'example' || k === 'examples' || k === 'nullable' || k === 'discriminator') continue;
    if (k === 'properties' && v && typeof v === 'object' && !Array.isArray(v)) {
      out.properties = Object.fromEntries(Object.entries(v).map(([name, s]) => [name, strictSchema(s)]));
    } else if (k === '$ref' && typeof v === 'string') {
      out.$ref = `openapi.json${v}`;
    } else if (k === 'oneOf') {
      out.anyOf = strictSchema(v);
    } else if (k === 'additionalProperties' || k === 'items' || k === 'allOf' || k === 'anyOf' || k === 'not') {
      out[k] = strictSchema(v);
    } else {
      out[k] = v;
    }
  }
  if (out.allOf) delete out.type; // `{type: object, allOf: [$ref]}`: the reference says what it is
  if (out.properties && out.additionalProperties === undefined) out.additionalProperties = false;
  if (schema.nullable === true) return { anyOf: [{ type: 'null' }, out] };
  return out;
}

export class ResponseContract {
  private readonly ajv: Ajv;
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly routes: { method: string; template: string; pattern: RegExp; params: number }[] = [];

  constructor(private readonly doc: OpenApiDocument) {
    this.ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false });
    this.ajv.addSchema(
      {
        $id: 'openapi.json',
        components: {
          schemas: Object.fromEntries(
            Object.entries(doc.components?.schemas ?? {}).map(([name, schema]) => [name, strictSchema(schema)]),
          ),
        },
      },
      'openapi.json',
    );
    for (const [template, methods] of Object.entries(doc.paths)) {
      const source = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+');
      for (const method of Object.keys(methods))
        this.routes.push({
          method: method.toUpperCase(),
          template,
          pattern: new RegExp(`^${source}$`),
          params: (template.match(/\{/g) ?? []).length,
        });
    }
    // a literal segment wins over a parameter (e.g. /rerank/cache-stats over /rerank/{id})
    this.routes.sort((a, b) => a.params - b.params);
  }

  static fromCommittedDocument(): ResponseContract {
    return new ResponseContract(JSON.parse(readFileSync(DOCUMENT_PATH, 'utf8')) as OpenApiDocument);
  }

  /** The operation a request reached, by method and path (query string ignored). */
  route(method: string, path: string): string | null {
    const r = this.routes.find((x) => x.method === method && x.pattern.test(path));
    return r ? r.template : null;
  }

  /**
   * The validator of one operation's answer, or a reason why there is none: the operation, the status
   * or the content type is not declared. `null` when the answer is not checked (not an API operation).
   */
  validatorFor(
    method: string,
    path: string,
    status: number,
    contentType: string,
  ): { validate: ValidateFunction; where: string } | { undeclared: string } | null {
    if (NOT_OPERATIONS.test(path)) return null;
    const template = this.route(method, path);
    const name = `${method} ${template ?? path}`;
    if (!template) return { undeclared: `${name}: the operation is not in docs/openapi.json` };
    const responses = this.doc.paths[template][method.toLowerCase()].responses ?? {};
    const response = responses[String(status)] ?? responses[`${String(status)[0]}XX`];
    if (!response) return { undeclared: `${name}: status ${status} is not declared` };
    const media = response.content?.[contentType];
    if (!media?.schema) return { undeclared: `${name} ${status}: no schema for ${contentType}` };
    const where = `${name} ${status} ${contentType}`;
    let validate = this.validators.get(where);
    if (!validate) {
      validate = this.ajv.compile(strictSchema(media.schema as Json) as object);
      this.validators.set(where, validate);
    }
    return { validate, where };
  }
}

let shared: ResponseContract | undefined;
const pending: string[] = [];

/** Violations recorded since the last call (and forgets them). */
export function takeContractViolations(): string[] {
  return pending.splice(0, pending.length);
}

function describe(validate: ValidateFunction, body: unknown): string {
  const errors = (validate.errors ?? []).slice(0, 16).map((e) => {
    const extra =
      e.keyword === 'additionalProperties'
        ? ` "${String((e.params as { additionalProperty?: string }).additionalProperty)}"`
        : '';
    return `${e.instancePath || '/'} ${e.message ?? e.keyword}${extra}`;
  });
  const text = JSON.stringify(body);
  return `${errors.join('; ')}\n    body: ${text.length > 600 ? `${text.slice(0, 600)}…` : text}`;
}

function check(validate: ValidateFunction, where: string, payload: string, what: string): void {
  let body: unknown;
  try {
    body = JSON.parse(payload);
  } catch {
    pending.push(`${where}: ${what} is not JSON: ${payload.slice(0, 200)}`);
    return;
  }
  if (!validate(body)) pending.push(`${where}: ${what} does not match its schema: ${describe(validate, body)}`);
}

/**
 * Express middleware that records the answer of every request and validates it when it is complete:
 * a JSON body whole, an event stream event by event. Other content types (files, images, metrics
 * text) and non-2xx answers pass unchecked; error bodies have their own tests.
 */
export function responseContractRecorder(): (req: Request, res: Response, next: NextFunction) => void {
  shared ??= ResponseContract.fromCommittedDocument();
  const contract = shared;
  return (req, res, next) => {
    const method = req.method;
    const path = (req.originalUrl ?? req.url).split('?')[0];
    let mode: 'json' | 'sse' | 'skip' | undefined;
    let target: { validate: ValidateFunction; where: string } | undefined;
    const chunks: Buffer[] = [];
    let events = 0;
    const parser = createParser({
      onEvent: (e) => {
        if (!target || e.data === '[DONE]') return;
        events++;
        check(target.validate, target.where, e.data, `event ${events}${e.event ? ` (${e.event})` : ''}`);
      },
    });

    const start = (): void => {
      if (mode) return;
      mode = 'skip';
      if (res.statusCode < 200 || res.statusCode >= 300 || method === 'HEAD') return;
      const type = String(res.getHeader('content-type') ?? '')
        .split(';')[0]
        .trim()
        .toLowerCase();
      if (type !== 'application/json' && type !== 'text/event-stream') return;
      const found = contract.validatorFor(method, path, res.statusCode, type);
      if (!found) return;
      if ('undeclared' in found) {
        pending.push(found.undeclared);
        return;
      }
      target = found;
      mode = type === 'application/json' ? 'json' : 'sse';
    };
    const take = (chunk: unknown, encoding?: unknown): void => {
      if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
      start();
      if (mode === 'skip') return;
      const buf = Buffer.isBuffer(chunk)
        ? chunk
        : typeof chunk === 'string'
          ? Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8')
          : Buffer.from(chunk as Uint8Array);
      if (mode === 'json') chunks.push(buf);
      else parser.feed(buf.toString('utf8'));
    };

    const write = res.write.bind(res) as (...args: unknown[]) => boolean;
    const end = res.end.bind(res) as (...args: unknown[]) => Response;
    res.write = ((...args: unknown[]) => {
      take(args[0], args[1]);
      return write(...args);
    }) as Response['write'];
    res.end = ((...args: unknown[]) => {
      take(args[0], args[1]);
      start();
      if (mode === 'json' && target)
        check(target.validate, target.where, Buffer.concat(chunks).toString('utf8'), 'body');
      return end(...args);
    }) as Response['end'];
    next();
  };
}
