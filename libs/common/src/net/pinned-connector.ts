import { buildConnector } from 'undici';
import { ipVersion, normalizeHostname } from './ip-policy';

type ConnectArgs = Parameters<buildConnector.Callback>;

/**
 * undici connector that never resolves names itself: it connects to the vetted addresses for the
 * request's host (trying them in order), keeping the hostname for TLS SNI and certificate checks.
 * A host that was not vetted is refused.
 */
export function pinnedConnector(
  pins: ReadonlyMap<string, readonly string[]>,
  timeoutMs: number,
): buildConnector.connector {
  const base = buildConnector({ timeout: timeoutMs });
  return (options, callback) => {
    const addresses = pins.get(normalizeHostname(options.hostname));
    if (addresses === undefined || addresses.length === 0) {
      callback(new Error(`refusing to connect to unvetted host ${options.hostname}`), null);
      return;
    }
    const servername =
      options.protocol === 'https:' && ipVersion(options.hostname) === 0
        ? options.hostname.replace(/\.+$/, '')
        : undefined;
    let index = 0;
    const attempt = (): void => {
      const onConnect = (...args: ConnectArgs): void => {
        if (args[0] !== null && index + 1 < addresses.length) {
          index++;
          attempt();
          return;
        }
        callback(...args);
      };
      try {
        base({ ...options, hostname: addresses[index], ...(servername ? { servername } : {}) }, onConnect);
      } catch (err) {
        onConnect(err instanceof Error ? err : new Error(String(err)), null);
      }
    };
    attempt();
  };
}
