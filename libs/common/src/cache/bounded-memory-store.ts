import { LRUCache } from 'lru-cache';

/** Approximate heap bytes of a cached value (Buffers and typed arrays by their length). */
export function approximateBytes(value: unknown, depth = 0): number {
  if (value === null || value === undefined) return 8;
  if (typeof value === 'string') return 16 + value.length * 2;
  if (typeof value === 'number' || typeof value === 'boolean') return 8;
  if (ArrayBuffer.isView(value)) return 64 + value.byteLength;
  if (value instanceof ArrayBuffer) return 64 + value.byteLength;
  if (depth > 8 || typeof value !== 'object') return 64;
  let n = 64;
  if (Array.isArray(value)) {
    for (const v of value) n += 8 + approximateBytes(v, depth + 1);
    return n;
  }
  for (const [k, v] of Object.entries(value)) n += 16 + k.length * 2 + approximateBytes(v, depth + 1);
  return n;
}

/**
 * The in-process store behind the shared cache when there is no Redis: a least-recently-used map
 * (lru-cache) bounded in bytes, whose entries also expire by TTL; expired entries are purged
 * periodically so they never hold memory after their TTL. A Keyv store adapter (get/set/delete/clear).
 */
export class BoundedMemoryStore {
  private readonly lru: LRUCache<string, object>;
  private readonly purger: NodeJS.Timeout;
  readonly opts = { dialect: 'memory' };

  constructor(
    readonly maxBytes: number,
    purgeEveryMs = 30_000,
  ) {
    this.lru = new LRUCache<string, object>({
      maxSize: Math.max(1, maxBytes),
      sizeCalculation: (v) => Math.max(1, approximateBytes(v)),
      maxEntrySize: Math.max(1, maxBytes),
    });
    this.purger = setInterval(() => this.lru.purgeStale(), purgeEveryMs);
    this.purger.unref();
  }

  get(key: string): object | undefined {
    return this.lru.get(key);
  }

  set(key: string, value: object, ttl?: number): boolean {
    this.lru.set(key, value, { ttl: typeof ttl === 'number' && ttl > 0 ? ttl : 0 });
    return true;
  }

  delete(key: string): boolean {
    return this.lru.delete(key);
  }

  has(key: string): boolean {
    return this.lru.has(key);
  }

  clear(): void {
    this.lru.clear();
  }

  /** Drops expired entries now (also done every `purgeEveryMs`). */
  purgeStale(): void {
    this.lru.purgeStale();
  }

  get heldBytes(): number {
    return this.lru.calculatedSize;
  }

  get size(): number {
    return this.lru.size;
  }

  on(): this {
    return this;
  }

  close(): void {
    clearInterval(this.purger);
  }
}
