/**
 * Streaming answers as data: a streaming service returns an EventStream — typed events
 * plus the response headers — and the controller alone writes them as Server-Sent Events
 * (SseWriter.pipe). Services and their tests never touch HTTP.
 */

/** One Server-Sent Events message: `event: <name>` when named, then `data:` (a string as is, anything else as JSON). */
export interface SseEvent {
  event?: string;
  data: unknown;
}

/** A streaming answer: its events, and the headers to send with the first byte. */
export interface EventStream<E extends SseEvent = SseEvent> {
  /**
   * Complete once the first event was produced (e.g. `x-gateway-model`: the model that serves is
   * known only after retries and fallbacks); read by the writer just before the first byte.
   */
  readonly headers: Readonly<Record<string, string>>;
  /**
   * The events. An error thrown before the first event is an ordinary HTTP error (nothing was
   * sent); after it the service yields its own in-band error event and ends. Stopping early
   * (`break` / `return()`) aborts the upstream call and waits until the delivered part is billed.
   */
  readonly events: AsyncIterable<E>;
}

/**
 * Turns a push-style producer into a pull-style async generator, one item at a time: `push`
 * resolves once the consumer asked for the next item (back-pressure, like a socket's 'drain').
 * The generator returns what `produce` resolved to, or throws what it threw. When the consumer
 * stops early, `onCancel` runs (e.g. abort the upstream), pending and later pushes resolve at once,
 * and the generator finishes only after `produce` settled (e.g. the delivered tokens were billed).
 */
export async function* pullFrom<T, R>(
  produce: (push: (item: T) => Promise<void>) => Promise<R>,
  onCancel: () => void,
): AsyncGenerator<T, R, undefined> {
  const queue: T[] = [];
  let wake: (() => void) | null = null;
  let resume: (() => void) | null = null;
  let cancelled = false;
  const state: { outcome: { ok: true; value: R } | { ok: false; error: unknown } | null } = { outcome: null };
  const notify = (): void => {
    const w = wake;
    wake = null;
    w?.();
  };
  const unblock = (): void => {
    const r = resume;
    resume = null;
    r?.();
  };
  const push = (item: T): Promise<void> => {
    if (cancelled) return Promise.resolve();
    queue.push(item);
    notify();
    return new Promise<void>((resolve) => {
      resume = resolve;
    });
  };
  const run = produce(push).then(
    (value) => {
      state.outcome = { ok: true, value };
    },
    (error: unknown) => {
      state.outcome = { ok: false, error };
    },
  );
  void run.finally(notify);
  let finished = false;
  try {
    for (;;) {
      if (queue.length > 0) {
        yield queue.shift() as T;
        unblock();
        continue;
      }
      if (state.outcome) break;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
    finished = true;
    const o = state.outcome;
    if (!o) throw new Error('pullFrom: the producer settled without an outcome');
    if (!o.ok) throw o.error;
    return o.value;
  } finally {
    if (!finished) {
      cancelled = true;
      onCancel();
      unblock();
      await run;
    }
  }
}
