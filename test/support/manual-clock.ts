import { Clock } from '@app/common';

/** A clock tests can set and advance (TTL expiry, reservation expiry). Test-only. */
export class ManualClock extends Clock {
  constructor(private t: number = Date.now()) {
    super();
  }
  override now(): number {
    return this.t;
  }
  advance(ms: number): void {
    this.t += ms;
  }
}
