import { createHash, randomBytes } from 'node:crypto';
import { sha256Hex } from './digest';

describe('sha256Hex', () => {
  it('is the SHA-256 of the bytes, as hex', async () => {
    for (const bytes of [Buffer.alloc(0), Buffer.from('abc'), randomBytes(3 * 1024 * 1024 + 7)])
      expect(await sha256Hex(bytes)).toBe(createHash('sha256').update(bytes).digest('hex'));
  });

  it('leaves the event loop free while it hashes', async () => {
    const bytes = randomBytes(64 * 1024 * 1024);
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    await sha256Hex(bytes);
    clearInterval(timer);
    // hashing 64 MB takes well over a few milliseconds; timers fired meanwhile
    expect(ticks).toBeGreaterThan(2);
  });
});
