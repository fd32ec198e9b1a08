import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { createClient } from '@redis/client';

/**
 * Where a test suite keeps its state.
 * - embedded (default): SQLite in a fresh temp DATA_DIR + in-process cache.
 * - postgres: set by scripts/run-tests.js (GW_TEST_BACKEND=postgres) from TEST_DATABASE_URL /
 *   TEST_REDIS_URL: each suite gets its own Postgres schema and Redis key prefix, dropped at the end,
 *   so suites run in parallel without seeing each other.
 */
export interface TestBackend {
  kind: 'embedded' | 'postgres';
  env: Record<string, string>;
  cleanup(): Promise<void>;
}

export function backendKind(): 'embedded' | 'postgres' {
  return process.env.GW_TEST_BACKEND === 'postgres' ? 'postgres' : 'embedded';
}

export async function createTestBackend(): Promise<TestBackend> {
  const id = randomBytes(5).toString('hex');
  if (backendKind() === 'embedded') {
    const dir = mkdtempSync(join(tmpdir(), 'gw-test-'));
    return {
      kind: 'embedded',
      env: { DATA_DIR: dir },
      cleanup: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const databaseUrl = required('TEST_DATABASE_URL');
  const schema = `t_${id}`;
  const pg = new Client({ connectionString: databaseUrl });
  await pg.connect();
  await pg.query(`CREATE SCHEMA ${schema}`);
  await pg.end();
  const env: Record<string, string> = { DATABASE_URL: databaseUrl, DATABASE_SCHEMA: schema, DATABASE_POOL_SIZE: '10' };
  const redisUrl = process.env.TEST_REDIS_URL;
  const prefix = `gwtest-${id}`;
  if (redisUrl) Object.assign(env, { REDIS_URL: redisUrl, REDIS_KEY_PREFIX: prefix });
  return {
    kind: 'postgres',
    env,
    cleanup: async () => {
      const c = new Client({ connectionString: databaseUrl });
      await c.connect();
      await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await c.end();
      if (redisUrl) await deleteRedisPrefix(redisUrl, prefix);
    },
  };
}

export async function deleteRedisPrefix(url: string, prefix: string): Promise<void> {
  const client = createClient({ url });
  await client.connect();
  try {
    for await (const keys of client.scanIterator({ MATCH: `${prefix}:*`, COUNT: 500 })) {
      if (keys.length) await client.del(keys);
    }
  } finally {
    client.destroy();
  }
}

function required(name: string): string {
  const v = process.env[name];
  if (!v) throw new Error(`${name} must be set when GW_TEST_BACKEND=postgres`);
  return v;
}
