import { webcrypto } from 'node:crypto';

/**
 * SHA-256 of `bytes` as hex, computed on libuv's thread pool (WebCrypto's digest is an asynchronous
 * job) instead of the event loop: a 10 MB upload takes ≈ 50 ms to hash, which every other request of
 * the process would otherwise wait for.
 */
export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  return Buffer.from(await webcrypto.subtle.digest('SHA-256', bytes)).toString('hex');
}
