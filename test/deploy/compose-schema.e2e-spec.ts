/**
 * docker-compose.yml is a valid Compose file. No Docker engine runs here, so the file is
 * checked against the Compose Specification JSON schema — the copy shipped by the maintained
 * `dclint` package (schemas/compose.schema.json, from the compose-spec project) — with ajv.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Ajv, { ErrorObject } from 'ajv';
import draft07 from 'ajv/dist/refs/json-schema-draft-07.json';
import { parse } from 'yaml';
import { parseEnv } from '@app/config';

const ROOT = join(__dirname, '../..');

function composeValidator() {
  const schemaFile = join(dirname(require.resolve('dclint/package.json')), 'schemas/compose.schema.json');
  const schema = JSON.parse(readFileSync(schemaFile, 'utf8')) as Record<string, unknown>;
  // strict: false — the official schema uses annotation keywords (deprecated, x-*) that ajv's strict mode rejects
  const ajv = new Ajv({ allErrors: true, strict: false });
  // the file names draft-07 by its https URL; ajv knows the same meta-schema as http://…/schema#
  if (typeof schema.$schema === 'string' && !ajv.getSchema(schema.$schema))
    ajv.addMetaSchema({ ...draft07, $id: schema.$schema });
  return { validate: ajv.compile(schema), title: schema.title };
}

function describeErrors(errors: ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
}

describe('docker-compose.yml against the Compose Specification schema', () => {
  const { validate, title } = composeValidator();
  const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8')) as Record<
    string,
    Record<string, Record<string, unknown>>
  >;

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

  it('declares the services docs/operations.md documents (postgres, redis, api, lb) with restart policies', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['api', 'lb', 'postgres', 'redis']);
    for (const [name, svc] of Object.entries(compose.services))
      expect({ name, restart: svc.restart }).toEqual({ name, restart: expect.any(String) });
  });
});

describe('the production shape (static checks; no Docker engine here)', () => {
  const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8')) as {
    services: Record<string, Record<string, unknown>>;
  };
  const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
  const nginx = readFileSync(join(ROOT, 'deploy/nginx.conf'), 'utf8');

  it('api replicas publish no host port (so --scale api=N works); only the load balancer does, and it proxies to api:3000 unbuffered (SSE)', () => {
    const { api, lb } = compose.services;
    expect(api.ports).toBeUndefined();
    expect(api.expose).toEqual(['3000']);
    expect(lb.ports).toEqual(['${PORT:-8080}:80']);
    expect(nginx).toMatch(/server api:3000 resolve;/);
    expect(nginx).toMatch(/proxy_buffering off;/);
  });

  it('there is no default admin token: ADMIN_TOKEN defaults to empty, which the config reads as unset (admin API off)', () => {
    const env = (compose.services.api.environment ?? {}) as Record<string, string>;
    expect(env.ADMIN_TOKEN).toBe('${ADMIN_TOKEN:-}');
    expect(parseEnv({ ADMIN_TOKEN: '' }).adminToken).toBeUndefined();
  });

  it('the image has a HEALTHCHECK and a data volume owned by the unprivileged user it runs as', () => {
    expect(dockerfile).toMatch(/^HEALTHCHECK .*\n\s+CMD .*\/health/m);
    const chown = dockerfile.search(/chown node:node \/app\/data/);
    const volume = dockerfile.search(/^VOLUME \["\/app\/data"\]/m);
    const user = dockerfile.search(/^USER node$/m);
    expect(chown).toBeGreaterThan(0);
    expect(volume).toBeGreaterThan(chown);
    expect(user).toBeGreaterThan(chown);
  });
});
