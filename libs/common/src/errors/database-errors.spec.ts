import { isDatabaseDataError, isDatabaseUnavailable } from './database-errors';

describe('database errors by shape', () => {
  it('data the database refuses: Postgres class 22 and 54000, SQLite too big or mismatched, also under driverError', () => {
    expect(isDatabaseDataError({ code: '22021' })).toBe(true);
    expect(isDatabaseDataError({ code: '22P02' })).toBe(true);
    expect(isDatabaseDataError({ code: '54000' })).toBe(true);
    expect(isDatabaseDataError({ message: 'query failed', driverError: { code: '22021' } })).toBe(true);
    expect(isDatabaseDataError({ code: 'SQLITE_TOOBIG' })).toBe(true);
  });
  it('the database being away, busy or a conflict is not a data error', () => {
    for (const code of ['08006', '57P01', '40001', '23505', 'SQLITE_BUSY', 'ECONNREFUSED']) {
      expect(isDatabaseDataError({ code })).toBe(false);
    }
    expect(isDatabaseDataError(new Error('boom'))).toBe(false);
    expect(isDatabaseDataError(null)).toBe(false);
    expect(isDatabaseUnavailable({ code: '22021' })).toBe(false);
  });
});
