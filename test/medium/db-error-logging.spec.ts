import { Writable } from 'node:stream';
import pino, { stdSerializers } from 'pino';
import { ApiKeysRepository } from '@app/auth/api-keys.repository';
import { ApiKeyEntity } from '@app/auth/entities/api-key.entity';
import { hashApiKey } from '@app/auth';
import { newId, pinoHttpOptions } from '@app/common';
import { AppConfig } from '@app/config';
import { Factories } from '../factories';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';

/**
 * A failing api_keys insert on a real database: the error TypeORM throws carries the bound values
 * (key hash, prefix) and, on Postgres, a `detail` quoting them. Logged with the service's pino
 * options, none of them appears; what failed (message, SQL text) still does.
 */
describe(`database errors in the logs on ${backendKind()}`, () => {
  let t: TestApp;
  let repo: ApiKeysRepository;
  let make: Factories;

  beforeAll(async () => {
    t = await createTestApp();
    repo = t.get(ApiKeysRepository);
    make = new Factories(t);
  });
  afterAll(() => t?.close());

  /** A pino logger with the service's options, writing into `lines`. */
  function serviceLogger(lines: string[]): pino.Logger {
    const options = pinoHttpOptions(t.get(AppConfig));
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString('utf8'));
        done();
      },
    });
    return pino({ level: 'info', serializers: options.serializers, redact: options.redact }, sink);
  }

  it('a duplicate api_keys insert is logged without the key hash or prefix', async () => {
    const team = await make.team(0);
    const hash = hashApiKey(`sk-medium-${newId()}`);
    const prefix = `sk-${newId().slice(0, 8)}`;
    const key: ApiKeyEntity = {
      id: newId(),
      teamId: team.id,
      name: 'dup',
      prefix,
      keyHash: hash,
      createdAt: Date.now(),
      revokedAt: null,
      lastUsedAt: null,
    };
    await repo.insert(key);
    const err = await repo.insert({ ...key }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);

    // what pino's standard serializer would print: the values are in there
    expect(JSON.stringify(stdSerializers.err(err as Error))).toContain(hash);

    const lines: string[] = [];
    serviceLogger(lines).error({ err, requestId: 'req-1' }, 'unhandled error');
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0]);
    expect(lines[0]).not.toContain(hash);
    expect(lines[0]).not.toContain(prefix);
    expect(line.err).toMatchObject({
      type: 'QueryFailedError',
      message: expect.stringMatching(/unique|duplicate/i),
      query: expect.stringContaining('api_keys'),
    });
    expect(line.err.parameters).toBeUndefined();
    expect(line.err.driverError).toBeUndefined();
    expect(line.err.detail).toBeUndefined();
  });
});
