import { Sleeper } from '@app/common';

/** A Sleeper that records every requested wait and returns at once (retry backoff without waiting). Test-only. */
export class RecordingSleeper extends Sleeper {
  readonly delays: number[] = [];

  override async sleep(ms: number): Promise<void> {
    this.delays.push(ms);
  }

  clear(): void {
    this.delays.length = 0;
  }
}
