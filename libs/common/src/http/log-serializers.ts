import { stdSerializers } from 'pino';

/**
 * Members of database errors that carry the values of a statement: TypeORM's QueryFailedError keeps
 * the bound `parameters` and the `driverError`, and copies the driver's members onto itself —
 * Postgres' `detail` ("Key (key_hash)=(…) already exists.") and `where` quote row values.
 */
const VALUE_CARRYING_KEYS = ['parameters', 'driverError', 'detail', 'where'] as const;

type Serialized = Record<string, unknown>;

function scrub(value: unknown): void {
  if (typeof value !== 'object' || value === null) return;
  const obj = value as Serialized;
  for (const key of VALUE_CARRYING_KEYS) delete obj[key];
  if (Array.isArray(obj.aggregateErrors)) obj.aggregateErrors.forEach(scrub);
  for (const nested of Object.values(obj)) {
    if (typeof nested === 'object' && nested !== null && 'message' in nested && 'stack' in nested) scrub(nested);
  }
}

/**
 * pino's standard error serializer (type, message, stack, own members) minus the members that hold
 * SQL parameter values. Used for every `err` logged by the service.
 */
export function serializeError(err: unknown): unknown {
  const out = stdSerializers.err(err as Error);
  if (out !== err) scrub(out);
  return out;
}
