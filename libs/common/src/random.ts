import { Injectable } from '@nestjs/common';

/**
 * Randomness behind an injectable class (retry jitter, weighted deployment picks), so tests fix the
 * draws instead of patching Math.random.
 */
@Injectable()
export class Random {
  /** a number in [0, 1) */
  next(): number {
    return Math.random();
  }
}
