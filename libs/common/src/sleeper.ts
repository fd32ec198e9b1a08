import { Injectable } from '@nestjs/common';

/**
 * Waiting behind an injectable class (retry backoff), so tests record the delays instead of sleeping.
 * `sleep` resolves after `ms`, or at once when `signal` aborts (the caller then checks the signal).
 */
@Injectable()
export class Sleeper {
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (ms <= 0 || signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal?.addEventListener('abort', done, { once: true });
    });
  }
}
