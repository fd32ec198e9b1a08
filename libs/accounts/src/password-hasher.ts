import { Injectable } from '@nestjs/common';
import { randomBytes, scrypt, ScryptOptions, timingSafeEqual } from 'node:crypto';

const KEY_LEN = 64;
/** N = 2^15, r = 8, p = 1: OWASP's scrypt minimum; about 32 MiB and ~50 ms per hash. */
const PARAMS = { N: 1 << 15, r: 8, p: 1 } as const;
const MAXMEM = 64 * 1024 * 1024;

function derive(password: string, salt: Buffer, o: { N: number; r: number; p: number }): Promise<Buffer> {
  const options: ScryptOptions = { ...o, maxmem: MAXMEM };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFKC'), salt, KEY_LEN, options, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

/**
 * Password hashes with node:crypto's scrypt, stored as `scrypt$N$r$p$salt$hash` (base64url) so the
 * parameters can be raised later without invalidating stored hashes.
 */
@Injectable()
export class PasswordHasher {
  /** A hash of a random password, verified against when the e-mail is unknown so timing does not tell. */
  private decoy: Promise<string> | null = null;

  async hash(password: string): Promise<string> {
    const salt = randomBytes(16);
    const key = await derive(password, salt, PARAMS);
    return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64url'), key.toString('base64url')].join('$');
  }

  /** Constant-time check; a malformed or null hash is a mismatch (after the same work as a real check). */
  async verify(password: string, stored: string | null): Promise<boolean> {
    const parts = stored?.split('$') ?? [];
    if (parts.length !== 6 || parts[0] !== 'scrypt') {
      await this.verify(password, await this.decoyHash());
      return false;
    }
    const [, n, r, p, salt, hash] = parts;
    const expected = Buffer.from(hash, 'base64url');
    const key = await derive(password, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) });
    return key.length === expected.length && timingSafeEqual(key, expected);
  }

  decoyHash(): Promise<string> {
    this.decoy ??= this.hash(randomBytes(16).toString('hex'));
    return this.decoy;
  }
}
