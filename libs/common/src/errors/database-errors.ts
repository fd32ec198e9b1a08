/**
 * Is this error the database being unreachable or restarting (as opposed to a bad statement)?
 * Recognised by shape, so libs/common needs no driver: node-postgres / pg-pool connection errors,
 * Postgres SQLSTATE classes 08 (connection exception) and 57P (operator intervention: shutdown,
 * crash recovery, cannot connect now), 53300 (too many connections), and SQLite's busy / locked.
 * TypeORM wraps driver errors as `driverError`; both levels are checked.
 */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);
const SQLSTATES = /^(08\d{3}|57P0[1-4]|53300)$/;
const SQLITE_CODES = new Set(['SQLITE_BUSY', 'SQLITE_LOCKED', 'SQLITE_CANTOPEN', 'SQLITE_IOERR']);
const MESSAGES = [
  /Connection terminated/i,
  /timeout exceeded when trying to connect/i,
  /Client has encountered a connection error/i,
  /connection is not (open|queryable)/i,
  /Cannot use a pool after calling end/i,
  /the database system is (starting up|shutting down|in recovery mode)/i,
];

export function isDatabaseUnavailable(err: unknown, depth = 0): boolean {
  if (typeof err !== 'object' || err === null || depth > 3) return false;
  const e = err as { code?: unknown; message?: unknown; driverError?: unknown; cause?: unknown; errors?: unknown };
  if (typeof e.code === 'string' && (NETWORK_CODES.has(e.code) || SQLSTATES.test(e.code) || SQLITE_CODES.has(e.code)))
    return true;
  if (typeof e.message === 'string' && MESSAGES.some((re) => re.test(e.message as string))) return true;
  if (Array.isArray(e.errors) && e.errors.some((x) => isDatabaseUnavailable(x, depth + 1))) return true;
  return isDatabaseUnavailable(e.driverError, depth + 1) || isDatabaseUnavailable(e.cause, depth + 1);
}

/** Seconds a client should wait before retrying a request refused because the database is away. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/**
 * Postgres SQLSTATE class 22 (data exception: a character the encoding refuses, a value out of
 * range, bad text for a type) and 54000 (a value past a limit, such as a text too long for a
 * tsvector); SQLite's value too big or of the wrong type.
 */
const DATA_SQLSTATES = /^(22[0-9A-Z]{3}|54000)$/;
const SQLITE_DATA_CODES = new Set(['SQLITE_TOOBIG', 'SQLITE_MISMATCH']);

/**
 * Is this error the database refusing the data itself, so that the same write fails again however
 * often it is retried (as opposed to the database being away or busy)? Recognised by shape, at the
 * error and at TypeORM's `driverError`.
 */
export function isDatabaseDataError(err: unknown, depth = 0): boolean {
  if (typeof err !== 'object' || err === null || depth > 3) return false;
  const e = err as { code?: unknown; driverError?: unknown; cause?: unknown };
  if (typeof e.code === 'string' && (DATA_SQLSTATES.test(e.code) || SQLITE_DATA_CODES.has(e.code))) return true;
  return isDatabaseDataError(e.driverError, depth + 1) || isDatabaseDataError(e.cause, depth + 1);
}
