/** Polls `check` every `every` ms until it holds; throws when `ms` (10 s) passed first. */
export async function waitFor(check: () => boolean | Promise<boolean>, ms = 10_000, every = 100): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((r) => setTimeout(r, every));
  }
}

/**
 * Waits until a gateway process answers `path` with a 2xx (a replica's start takes long on a loaded
 * CI machine: 120 s by default). `stderr()` names what the process said when it never did.
 */
export async function untilAnswering(
  url: string,
  opts: { path?: string; ms?: number; stderr?: () => string } = {},
): Promise<void> {
  const path = opts.path ?? '/ready';
  await waitFor(
    () =>
      fetch(`${url}${path}`, { signal: AbortSignal.timeout(5_000) }).then(
        (r) => r.ok,
        () => false,
      ),
    opts.ms ?? 120_000,
    200,
  ).catch((err: Error) => {
    throw new Error(`${url}${path}: ${err.message}${opts.stderr ? `; the process's stderr: ${opts.stderr()}` : ''}`);
  });
}
