import { createHash, randomBytes } from 'node:crypto';
import { sha256Hex } from './digest';

describe('sha256Hex', () => {
  it('is the SHA-256 of the bytes, as hex', async () => {
    for (const bytes of [Buffer.alloc(0), Buffer.from('abc'), randomBytes(3 * 1024 * 1024 + 7)])
      expect(await sha256Hex(bytes)).toBe(createHash('sha256').update(bytes).digest('hex'));
  });

  it('hashes one MiB per turn of the event loop, so other work runs between the parts', async () => {
    const bytes = randomBytes(8 * 1024 * 1024);
    let turns = 0;
    let hashing = true;
    const other = () => {
      if (!hashing) return;
      turns++;
      setImmediate(other);
    };
    setImmediate(other);
    const digest = await sha256Hex(bytes);
    hashing = false;
    expect(digest).toBe(createHash('sha256').update(bytes).digest('hex'));
    // eight parts, a turn between each: the other work ran at least seven times (none if hashed in one piece)
    expect(turns).toBeGreaterThanOrEqual(7);
  });
});
