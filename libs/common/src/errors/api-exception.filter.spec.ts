import { logSafeError } from './api-exception.filter';

describe('logSafeError', () => {
  it('drops SQL parameters and driver payloads from database errors', () => {
    const err = Object.assign(new Error('duplicate key value violates unique constraint'), {
      name: 'QueryFailedError',
      query: 'INSERT INTO "api_keys"("id", "key_hash", "prefix") VALUES ($1, $2, $3)',
      parameters: ['k1', 'c2f1d3…secret-hash', 'sk-live-abc'],
      driverError: { code: '23505', detail: 'Key (key_hash)=(c2f1d3…secret-hash) already exists.' },
    });
    const safe = logSafeError(err);
    const text = JSON.stringify(safe);
    expect(text).not.toContain('secret-hash');
    expect(text).not.toContain('sk-live-abc');
    expect(safe).toMatchObject({
      type: 'QueryFailedError',
      code: '23505',
      message: 'duplicate key value violates unique constraint',
    });
  });
  it('leaves other errors as they are', () => {
    const e = new Error('boom');
    expect(logSafeError(e)).toBe(e);
  });
});
