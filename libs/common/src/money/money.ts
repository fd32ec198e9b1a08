/**
 * Money inside the service is an integer number of micro-RUB (1 RUB = 1,000,000 µRUB), stored as
 * bigint in Postgres. JavaScript numbers hold integers exactly up to 2^53 (≈ 9.007e15 µRUB ≈ 9 billion
 * RUB), far above any balance this service holds; assertSafeMicro guards the bound anyway.
 * RUB numbers appear only at the HTTP edge.
 */
export const MICRO_PER_RUB = 1_000_000;

export function assertSafeMicro(micro: number): number {
  if (!Number.isSafeInteger(micro)) throw new RangeError(`amount out of range: ${micro} µRUB`);
  return micro;
}

/** Prices seen as numbers → their µRUB (a catalog has few distinct prices; bounded all the same). */
const microOfNumber = new Map<number, number>();
const MICRO_MEMO_MAX = 4096;

/** RUB (number or decimal string, ≤ 6 decimals) → integer µRUB, exact (no float drift). */
export function rubToMicro(rub: number | string): number {
  if (typeof rub === 'number') {
    let micro = microOfNumber.get(rub);
    if (micro === undefined) {
      micro = parseRub(numberToPlainString(rub));
      if (microOfNumber.size >= MICRO_MEMO_MAX) microOfNumber.clear();
      microOfNumber.set(rub, micro);
    }
    return micro;
  }
  return parseRub(rub.trim());
}

function parseRub(s: string): number {
  const m = /^(-)?(\d+)(?:\.(\d{1,6})\d*)?$/.exec(s);
  if (!m) throw new RangeError(`not a RUB amount: ${s}`);
  const [, neg, whole, frac = ''] = m;
  const micro = Number(whole) * MICRO_PER_RUB + Number(frac.padEnd(6, '0'));
  return assertSafeMicro(neg ? -micro : micro);
}

function numberToPlainString(n: number): string {
  if (!Number.isFinite(n)) throw new RangeError(`not a finite amount: ${n}`);
  // toFixed(6) rounds to the micro; avoids exponent notation for small/large values
  return n.toFixed(6);
}

/** µRUB → RUB as a JSON number (exact to 6 decimals). */
export function microToRub(micro: number): number {
  return Number((micro / MICRO_PER_RUB).toFixed(6));
}

/**
 * Cost of `tokens` at `rubPer1M` RUB per million tokens, in µRUB, rounded half-up once.
 * tokens × rubPer1M / 1e6 RUB = tokens × rubPer1M µRUB, so only the price's sub-µRUB part needs care:
 * the price is first made an integer number of µRUB per 1M tokens, and the product divided by 1e6.
 */
export function tokenCostMicro(tokens: number, rubPer1M: number): number {
  return exactCostMicro([{ tokens, rubPer1M }]).totalMicro;
}

/**
 * round(num / 1e6), half-up, for a non-negative safe integer `num`. Every step is exact: the float
 * quotient may be off by one near an integer, and the remainder (an exact integer below 2^53) says so.
 */
function roundMillionth(num: number): number {
  let q = Math.floor(num / MICRO_PER_RUB);
  let r = num - q * MICRO_PER_RUB;
  if (r < 0) {
    q -= 1;
    r += MICRO_PER_RUB;
  } else if (r >= MICRO_PER_RUB) {
    q += 1;
    r -= MICRO_PER_RUB;
  }
  return r * 2 >= MICRO_PER_RUB ? q + 1 : q;
}

function roundMillionthBig(num: bigint): number {
  const q = num / 1_000_000n;
  const r = num % 1_000_000n;
  return Number(r * 2n >= 1_000_000n ? q + 1n : q);
}

/**
 * Sum of several token charges computed from one exact numerator and rounded ONCE, so that
 * total = round(Σ tokens_i × price_i / 1e6) and not the sum of separately rounded parts.
 */
export function exactCostMicro(parts: { tokens: number; rubPer1M: number }[]): { totalMicro: number } {
  const priced = parts.filter((p) => p.tokens > 0 && p.rubPer1M > 0);
  let num = 0;
  let integral = true;
  for (const p of priced) {
    num += p.tokens * rubToMicro(p.rubPer1M); // the price as integer µRUB per 1M tokens
    integral &&= Number.isSafeInteger(p.tokens);
  }
  // integer token counts and a sum below 2^53: every product and the sum are exact (each term is ≤
  // the sum, all non-negative); otherwise BigInt keeps it exact (and refuses a fractional count)
  if (integral && Number.isSafeInteger(num)) return { totalMicro: assertSafeMicro(roundMillionth(num)) };
  let big = 0n;
  for (const p of priced) big += BigInt(p.tokens) * BigInt(rubToMicro(p.rubPer1M));
  return { totalMicro: assertSafeMicro(roundMillionthBig(big)) };
}
