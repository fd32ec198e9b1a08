import { Injectable } from '@nestjs/common';

/** Time behind an injectable so tests can move it (cache TTLs, reservation expiry). */
@Injectable()
export class Clock {
  now(): number {
    return Date.now();
  }
}
