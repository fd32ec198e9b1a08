import { Agent, fetch as undiciFetch } from 'undici';
import { SafeFetchError } from './safe-fetch-error';
import { pinnedConnector, SafeFetcher } from './safe-fetcher';

/** The `fetch` signature streaming protocol clients take (the MCP SDK's transports). */
export type GuardedFetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

const REDIRECT = new Set([301, 302, 303, 307, 308]);

/**
 * A `fetch` for a client that streams (MCP over Streamable HTTP or SSE) to a URL a user registered:
 * every request's host is vetted by the SSRF policy of {@link SafeFetcher} (OUTBOUND_ALLOW_CIDRS
 * exceptions included) and the connection pinned to the vetted addresses; redirects are refused
 * (a 3xx answer throws), so credentials sent to the server never travel elsewhere. The body is left
 * to the caller to read (no size cap: the protocol's own client bounds what it reads).
 */
export function guardedFetch(fetcher: SafeFetcher, opts: { connectTimeoutMs: number }): GuardedFetch {
  return async (url, init) => {
    const href = typeof url === 'string' ? url : url.href;
    const { hostname, addresses } = await fetcher.vetUrl(href);
    const dispatcher = new Agent({
      connect: pinnedConnector(new Map([[hostname, addresses]]), opts.connectTimeoutMs),
      // streams stay open as long as the server keeps them (the caller's signal ends them)
      bodyTimeout: 0,
      headersTimeout: 0,
    });
    let response: Awaited<ReturnType<typeof undiciFetch>>;
    try {
      response = await undiciFetch(href, {
        ...(init as Parameters<typeof undiciFetch>[1]),
        redirect: 'manual',
        dispatcher,
      });
    } catch (err) {
      void dispatcher.close().catch(() => undefined);
      throw err;
    }
    if (REDIRECT.has(response.status)) {
      void response.body?.cancel().catch(() => undefined);
      void dispatcher.close().catch(() => undefined);
      throw new SafeFetchError('http_error', `Redirect (${response.status}) refused`, {
        url: href,
        status: response.status,
      });
    }
    // the agent closes once the response's body has been read (or the stream ends)
    void dispatcher.close().catch(() => undefined);
    return response as unknown as Response;
  };
}
