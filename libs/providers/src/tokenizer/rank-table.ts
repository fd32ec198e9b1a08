/**
 * A BPE encoding's tokens (byte sequences) and their ranks, held outside the JavaScript heap: every
 * token's bytes in one Uint8Array, the rank → bytes index and an open-addressing hash table in
 * typed arrays. As a Map of binary strings the two encodings were ≈ 300,000 strings and hash tables
 * of ≈ 2 million slots, which every full garbage collection marked again while requests waited; a
 * typed array's contents are never visited by the collector. A lookup takes a range of a binary
 * string (one char per byte) and allocates nothing.
 */
export class RankTable {
  /** every token's bytes, by rank */
  private readonly bytes: Uint8Array;
  /** rank → start of its bytes (ranks without a token: length 0) */
  private readonly starts: Uint32Array;
  private readonly lengths: Uint16Array;
  /** open addressing, linear probing: rank + 1, 0 = empty */
  private readonly slots: Int32Array;
  private readonly mask: number;

  /** `tokens[i]` is the byte sequence of rank `ranks[i]` (ranks unique, tokens unique and non-empty) */
  constructor(tokens: readonly Uint8Array[], ranks: readonly number[]) {
    let total = 0;
    let maxRank = -1;
    for (let i = 0; i < tokens.length; i++) {
      total += tokens[i].length;
      if (ranks[i] > maxRank) maxRank = ranks[i];
    }
    this.bytes = new Uint8Array(total);
    this.starts = new Uint32Array(maxRank + 1);
    this.lengths = new Uint16Array(maxRank + 1);
    let capacity = 1024;
    while (capacity < tokens.length * 2) capacity *= 2;
    this.slots = new Int32Array(capacity);
    this.mask = capacity - 1;
    let at = 0;
    for (let i = 0; i < tokens.length; i++) {
      const token = tokens[i];
      const rank = ranks[i];
      if (token.length === 0 || token.length > 0xffff)
        throw new RangeError(`token of rank ${rank} has ${token.length} bytes`);
      this.bytes.set(token, at);
      this.starts[rank] = at;
      this.lengths[rank] = token.length;
      at += token.length;
      let slot = hashBytes(token) & this.mask;
      while (this.slots[slot] !== 0) slot = (slot + 1) & this.mask;
      this.slots[slot] = rank + 1;
    }
  }

  /** The rank of the bytes `binary[start..end)` (a binary string: one char per byte), or -1. */
  rank(binary: string, start: number, end: number): number {
    const length = end - start;
    let h = FNV_OFFSET;
    for (let i = start; i < end; i++) h = Math.imul(h ^ binary.charCodeAt(i), FNV_PRIME);
    let slot = h & this.mask;
    for (;;) {
      const entry = this.slots[slot];
      if (entry === 0) return -1;
      const rank = entry - 1;
      if (this.lengths[rank] === length && this.equals(rank, binary, start)) return rank;
      slot = (slot + 1) & this.mask;
    }
  }

  /** Bytes of `rank`, or 0 when the encoding has no ordinary token of that rank. */
  byteLength(rank: number): number {
    return rank >= 0 && rank < this.lengths.length ? this.lengths[rank] : 0;
  }

  /** Copies the bytes of `rank` into `out` at `offset` (the caller checked byteLength). */
  copyTo(rank: number, out: Uint8Array, offset: number): void {
    const start = this.starts[rank];
    out.set(this.bytes.subarray(start, start + this.lengths[rank]), offset);
  }

  private equals(rank: number, binary: string, start: number): boolean {
    const from = this.starts[rank];
    const n = this.lengths[rank];
    for (let k = 0; k < n; k++) if (this.bytes[from + k] !== binary.charCodeAt(start + k)) return false;
    return true;
  }
}

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

function hashBytes(bytes: Uint8Array): number {
  let h = FNV_OFFSET;
  for (let i = 0; i < bytes.length; i++) h = Math.imul(h ^ bytes[i], FNV_PRIME);
  return h;
}
