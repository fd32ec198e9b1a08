/**
 * What the streaming chat services yield and the controllers write as Server-Sent Events:
 * `event` names the event (REST /api/v1/chat) or is absent (OpenAI style `data:` lines).
 */
export interface StreamEvent {
  event?: string;
  /** JSON-serialised on the wire; a string is written as is (`[DONE]`) */
  data: unknown;
}

/** Commits the response (status 200 and SSE headers) without writing an event: from here on errors go in-band. */
export const OPEN_STREAM: StreamEvent = Object.freeze({ data: undefined });

/**
 * Bridges a producer that pushes items through an awaited callback (ChatService.stream's sink) to
 * an async iterable. `emit(item)` resolves only once the consumer has handled the item and asks
 * for the next one, so back-pressure (and the abort check after every chunk) is kept. After the
 * producer settles its result goes through `finish`, whose items come last; a producer error is
 * thrown from the iterator. If the consumer stops early, pending and later emits resolve at once.
 */
export async function* pullFrom<T, R>(run: (emit: (item: T) => Promise<void>) => Promise<R>, finish: (result: R) => Iterable<T>): AsyncGenerator<T> {
  const queue: { item: T; taken: () => void }[] = [];
  let wake: (() => void) | null = null;
  let closed = false;
  let outcome: { ok: true; value: R } | { ok: false; error: unknown } | null = null;
  const notify = (): void => {
    const w = wake;
    wake = null;
    w?.();
  };
  const emit = (item: T): Promise<void> =>
    closed
      ? Promise.resolve()
      : new Promise<void>((taken) => {
          queue.push({ item, taken });
          notify();
        });
  void run(emit).then(
    (value) => {
      outcome = { ok: true, value };
      notify();
    },
    (error: unknown) => {
      outcome = { ok: false, error };
      notify();
    },
  );
  try {
    for (;;) {
      const next = queue[0];
      if (next) {
        yield next.item;
        queue.shift();
        next.taken();
        continue;
      }
      if (outcome) break;
      await new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    // also on an early return(): the item being handled and any queued ones release their producer
    closed = true;
    for (const pending of queue.splice(0)) pending.taken();
  }
  const settled = outcome as { ok: true; value: R } | { ok: false; error: unknown };
  if (!settled.ok) throw settled.error;
  yield* finish(settled.value);
}
