/** The readers of the env schema: each validates one variable, the error naming it. */

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

export type Env = Record<string, string | undefined>;

export function str(env: Env, name: string): string | undefined {
  const v = env[name];
  if (v === undefined) return undefined;
  const t = v.trim();
  return t === '' ? undefined : t;
}

export function int(env: Env, name: string, def: number, min: number, max: number): number {
  const raw = str(env, name);
  if (raw === undefined) return def;
  if (!/^-?\d+$/.test(raw)) throw new ConfigError(`${name} must be an integer, got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${n}`);
  return n;
}

/** An optional integer: unset (or empty) → undefined. */
export function optionalInt(env: Env, name: string, min: number, max: number): number | undefined {
  return str(env, name) === undefined ? undefined : int(env, name, 0, min, max);
}

export function decimal(env: Env, name: string, def: number, min: number): number {
  const raw = str(env, name);
  if (raw === undefined) return def;
  if (!/^\d+(\.\d{1,6})?$/.test(raw))
    throw new ConfigError(`${name} must be a non-negative number with at most 6 decimals, got "${raw}"`);
  const n = Number(raw);
  if (n < min) throw new ConfigError(`${name} must be >= ${min}, got ${n}`);
  return n;
}

export function url(env: Env, name: string, protocols: string[]): string | undefined {
  const raw = str(env, name);
  if (raw === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} is not a valid URL`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must use ${protocols.join(' or ')} (got ${parsed.protocol})`);
  }
  return raw.replace(/\/+$/, '');
}

export function bool(env: Env, name: string, def: boolean): boolean {
  const raw = str(env, name);
  if (raw === undefined) return def;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

export function email(env: Env, name: string): string | undefined {
  const v = str(env, name);
  if (v !== undefined && !/^[^\s@]+@[^\s@]+$/.test(v)) throw new ConfigError(`${name} must be an e-mail address`);
  return v?.toLowerCase();
}
