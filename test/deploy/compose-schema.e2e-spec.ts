/**
 * docker-compose.yml is a valid Compose file (issue 12). No Docker engine runs here, so the file is
 * checked against the Compose Specification JSON schema — the copy shipped by the maintained
 * `dclint` package (schemas/compose.schema.json, from the compose-spec project) — with ajv.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Ajv, { ErrorObject } from 'ajv';
import draft07 from 'ajv/dist/refs/json-schema-draft-07.json';
import { parse } from 'yaml';

const ROOT = join(__dirname, '../..');

function composeValidator() {
  const schemaFile = join(dirname(require.resolve('dclint/package.json')), 'schemas/compose.schema.json');
  const schema = JSON.parse(readFileSync(schemaFile, 'utf8')) as Record<string, unknown>;
  // strict: false — the official schema uses annotation keywords (deprecated, x-*) that ajv's strict mode rejects
  const ajv = new Ajv({ allErrors: true, strict: false });
  // the file names draft-07 by its https URL; ajv knows the same meta-schema as http://…/schema#
  if (typeof schema.$schema === 'string' && !ajv.getSchema(schema.$schema)) ajv.addMetaSchema({ ...draft07, $id: schema.$schema });
  return { validate: ajv.compile(schema), title: schema.title };
}

function describeErrors(errors: ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
}

describe('docker-compose.yml against the Compose Specification schema', () => {
  const { validate, title } = composeValidator();
  const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8')) as Record<string, Record<string, Record<string, unknown>>>;

  it('uses the Compose Specification schema', () => {
    expect(title).toBe('Compose Specification');
  });

  it('is valid', () => {
    const ok = validate(compose);
    expect(describeErrors(validate.errors)).toEqual([]);
    expect(ok).toBe(true);
  });

  it('the check has teeth: a misspelt key and a wrong type are refused', () => {
    const broken = structuredClone(compose);
    const [first] = Object.keys(broken.services);
    broken.services[first].restrat = 'always';
    expect(validate(broken)).toBe(false);
    expect(describeErrors(validate.errors).join('\n')).toContain('restrat');

    const wrongType = structuredClone(compose);
    wrongType.services[first].healthcheck = 'yes';
    expect(validate(wrongType)).toBe(false);
  });

  it('declares the services the README documents (postgres, redis, api, lb) with restart policies', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['api', 'lb', 'postgres', 'redis']);
    for (const [name, svc] of Object.entries(compose.services)) expect({ name, restart: svc.restart }).toEqual({ name, restart: expect.any(String) });
  });
});
