/**
 * One GigaChat connection per replica: the HTTP client (with GIGACHAT_CA_FILE added to the trusted
 * roots; verification is never switched off) and the OAuth access token.
 *
 * Token: `POST {oauth}` with `Authorization: Basic <GIGACHAT_AUTH_KEY>`, a fresh `RqUID` (uuid4)
 * and the form body `scope=<GIGACHAT_SCOPE>` answers `{access_token, expires_at}` (≈ 30 min,
 * `expires_at` in ms). The token is cached and fetched again a minute before it expires; concurrent
 * requests share one fetch (one refresh at a time), and a 401 from the API drops the token it was
 * sent with so exactly one new token is fetched for all requests that saw it fail.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import { Clock } from '@app/common';
import { Agent, request } from 'undici';
import { ProviderConnectionError, ProviderHttpClient } from '../http/provider-http.client';
import { asNumber, asRecord, asString, parseJson } from '../http/wire-json';
import { ProviderConnection, ProviderError } from '../types';
import { GIGACHAT_DEFAULT_OAUTH_URL } from './gigachat.definition';
import { mapGigaChatError } from './gigachat.errors';

/** A token is refreshed this long before its expiry (a request started on it must not outlive it). */
export const TOKEN_REFRESH_MARGIN_MS = 60_000;

/** Node/OpenSSL codes of a certificate the trusted roots cannot verify. */
const CERT_ERROR_CODES = [
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_HAS_EXPIRED',
  'CERT_UNTRUSTED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
];

interface CachedToken {
  value: string;
  expiresAtMs: number;
}

export class GigaChatSession {
  readonly http: ProviderHttpClient;
  private readonly agent: Agent;
  private cached?: CachedToken;
  private inflight?: Promise<CachedToken>;
  /** tokens fetched so far (observability and tests) */
  refreshes = 0;

  constructor(
    readonly conn: ProviderConnection,
    private readonly clock: Clock,
  ) {
    const caFile = conn.extra?.CA_FILE;
    const ca = caFile ? [...rootCertificates, readFileSync(caFile, 'utf8')] : undefined;
    this.agent = new Agent({
      keepAliveTimeout: 10_000,
      keepAliveMaxTimeout: 600_000,
      connections: 64,
      connect: { timeout: 10_000, ...(ca ? { ca } : {}) },
    });
    this.http = new ProviderHttpClient(this.agent, clock);
  }

  /** A valid access token: the cached one, or one fresh fetch shared by every caller waiting for it. */
  async token(): Promise<string> {
    const now = this.clock.now();
    if (this.cached && this.cached.expiresAtMs - TOKEN_REFRESH_MARGIN_MS > now) return this.cached.value;
    if (!this.inflight) {
      this.inflight = this.fetchToken().then(
        (t) => {
          this.cached = t;
          this.inflight = undefined;
          return t;
        },
        (e: unknown) => {
          this.inflight = undefined;
          throw e;
        },
      );
    }
    return (await this.inflight).value;
  }

  /** The API refused `token` (401): forget it unless a newer one already replaced it. */
  invalidate(token: string): void {
    if (this.cached?.value === token) this.cached = undefined;
  }

  /**
   * Runs `call` with a token; on a 401 drops that token and runs it once more with a fresh one.
   * Certificate failures become an error naming GIGACHAT_CA_FILE.
   */
  async withToken<T>(call: (token: string) => Promise<T>): Promise<T> {
    try {
      const token = await this.token();
      try {
        return await call(token);
      } catch (e) {
        if (!(e instanceof ProviderError) || e.kind !== 'auth' || e.upstreamStatus !== 401) throw e;
        this.invalidate(token);
        return await call(await this.token());
      }
    } catch (e) {
      throw certificateError(e) ?? e;
    }
  }

  close(): Promise<void> {
    return this.agent.close();
  }

  private async fetchToken(): Promise<CachedToken> {
    const url = this.conn.extra?.OAUTH_URL ?? GIGACHAT_DEFAULT_OAUTH_URL;
    const scope = this.conn.extra?.SCOPE ?? 'GIGACHAT_API_PERS';
    this.refreshes++;
    let status: number;
    let text: string;
    let headers: Record<string, string>;
    try {
      const res = await request(url, {
        method: 'POST',
        dispatcher: this.agent,
        headers: {
          authorization: `Basic ${this.conn.extra?.AUTH_KEY ?? ''}`,
          RqUID: randomUUID(),
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body: new URLSearchParams({ scope }).toString(),
        signal: AbortSignal.timeout(this.conn.timeoutMs),
      });
      status = res.statusCode;
      text = await res.body.text();
      headers = Object.fromEntries(
        Object.entries(res.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v ?? '')]),
      );
    } catch (e) {
      throw (
        certificateError(e) ??
        new ProviderConnectionError(
          'upstream',
          'GigaChat OAuth: the provider could not be reached',
          undefined,
          undefined,
          undefined,
          e instanceof Error ? e.message : String(e),
        )
      );
    }
    if (status < 200 || status > 299) {
      const err = mapGigaChatError(status, text, headers, this.clock.now());
      // the authorization key or scope is wrong: the gateway's configuration, not the caller's request
      if (status === 400 || status === 401 || status === 403)
        throw new ProviderError(
          'auth',
          `GigaChat OAuth refused GIGACHAT_AUTH_KEY / GIGACHAT_SCOPE: ${err.message}`,
          status,
        );
      throw err;
    }
    const parsed = parseJson(text);
    const body = parsed.ok ? asRecord(parsed.value) : undefined;
    const value = asString(body?.access_token);
    const expiresAt = asNumber(body?.expires_at);
    if (!value || expiresAt === undefined)
      throw new ProviderError('upstream', 'GigaChat OAuth answered without access_token / expires_at', status);
    // expires_at is in ms; a value in seconds is read as such
    return { value, expiresAtMs: expiresAt < 1e12 ? expiresAt * 1000 : expiresAt };
  }
}

/** A TLS verification failure anywhere in `e`'s chain → a clear upstream error naming GIGACHAT_CA_FILE. */
export function certificateError(e: unknown): ProviderError | undefined {
  const texts: string[] = [];
  let cur: unknown = e;
  for (let depth = 0; cur && depth < 5; depth++) {
    if (cur instanceof ProviderError && cur.detail) texts.push(cur.detail);
    if (cur instanceof Error) texts.push(cur.message, String((cur as { code?: unknown }).code ?? ''));
    cur = cur instanceof Error ? cur.cause : undefined;
  }
  const joined = texts.join(' ');
  const code = CERT_ERROR_CODES.find((c) => joined.includes(c));
  if (!code) return undefined;
  return new ProviderError(
    'upstream',
    `GigaChat's TLS certificate could not be verified (${code}): set GIGACHAT_CA_FILE to a PEM bundle with the Russian Trusted Root CA.`,
  );
}
