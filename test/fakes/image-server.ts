/**
 * Tiny static server for image-fetch tests (test-only): byte buffers at paths, redirects, an
 * oversize endpoint that streams N bytes without content-length, and per-path hit counters (so
 * SSRF tests can assert that nothing was fetched).
 */
import { deflateSync } from 'node:zlib';
import { Exchange, FakeHttpServer, RecordedRequest } from './fake-http';

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32(buf: Buffer): number {
  let c = 0xffffffff;
  for (const byte of buf) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function pngChunk(type: string, data: Buffer): Buffer {
  const typeAndData = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typeAndData));
  return Buffer.concat([length, typeAndData, crc]);
}

export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** A valid RGBA PNG of one solid colour (default: 1x1 opaque red). */
export function pngBytes(width = 1, height = 1, rgba: [number, number, number, number] = [255, 0, 0, 255]): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 6; // colour type RGBA
  ihdr[10] = 0; // compression
  ihdr[11] = 0; // filter
  ihdr[12] = 0; // interlace
  const row = Buffer.alloc(1 + width * 4);
  for (let x = 0; x < width; x++) row.set(rgba, 1 + x * 4);
  const raw = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([
    PNG_SIGNATURE,
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', deflateSync(raw)),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

type Route =
  | {
      kind: 'static';
      body: Buffer;
      contentType: string;
      status: number;
      headers: Record<string, string>;
      delayMs: number;
    }
  | { kind: 'redirect'; location: string; status: number }
  | { kind: 'oversize'; totalBytes: number; contentType: string; chunkSize: number };

export interface ServeOptions {
  status?: number;
  headers?: Record<string, string>;
  /** delay before the response headers */
  delayMs?: number;
}

export class ImageServer extends FakeHttpServer {
  private routes = new Map<string, Route>();
  private hitMap = new Map<string, number>();

  private constructor() {
    super();
  }

  static async start(): Promise<ImageServer> {
    const server = new ImageServer();
    await server.listen();
    return server;
  }

  /** Absolute URL of a path on this server. */
  url(path: string): string {
    return `${this.baseUrl}${path.startsWith('/') ? path : `/${path}`}`;
  }

  /** Serve `body` at `path` (exact pathname match, any query). Returns the URL. */
  serve(path: string, body: Buffer | Uint8Array | string, contentType = 'image/png', opts: ServeOptions = {}): string {
    this.routes.set(path, {
      kind: 'static',
      body: typeof body === 'string' ? Buffer.from(body) : Buffer.from(body),
      contentType,
      status: opts.status ?? 200,
      headers: opts.headers ?? {},
      delayMs: opts.delayMs ?? 0,
    });
    return this.url(path);
  }

  /** Redirect `path` to `location` (absolute URL or path). Returns the URL. */
  redirect(path: string, location: string, status: 301 | 302 | 303 | 307 | 308 = 302): string {
    this.routes.set(path, { kind: 'redirect', location, status });
    return this.url(path);
  }

  /** Stream `totalBytes` (PNG signature, then zeros) with chunked encoding and no content-length. Returns the URL. */
  oversize(path: string, totalBytes: number, opts: { contentType?: string; chunkSize?: number } = {}): string {
    this.routes.set(path, {
      kind: 'oversize',
      totalBytes,
      contentType: opts.contentType ?? 'image/png',
      chunkSize: opts.chunkSize ?? 64 * 1024,
    });
    return this.url(path);
  }

  /** Hits on one pathname, or on all paths when omitted. */
  hits(path?: string): number {
    if (path === undefined) return this.requests.length;
    return this.hitMap.get(path) ?? 0;
  }

  /** pathname → number of requests */
  hitCounts(): Record<string, number> {
    return Object.fromEntries(this.hitMap);
  }

  /** Forgets requests, hits, disconnects AND routes. */
  override reset(): void {
    super.reset();
    this.hitMap.clear();
    this.routes.clear();
  }

  protected async handle(rec: RecordedRequest, ex: Exchange): Promise<void> {
    this.hitMap.set(rec.path, (this.hitMap.get(rec.path) ?? 0) + 1);
    const route = this.routes.get(rec.path);
    if (!route) return ex.send({ status: 404, headers: { 'content-type': 'text/plain' }, body: 'not found' });
    const head = rec.method === 'HEAD';
    switch (route.kind) {
      case 'static': {
        await ex.sleep(route.delayMs);
        if (ex.closed) return;
        ex.writeHead(route.status, {
          'content-type': route.contentType,
          'content-length': String(route.body.length),
          ...route.headers,
        });
        return ex.end(head ? undefined : route.body);
      }
      case 'redirect':
        return ex.send({
          status: route.status,
          headers: { location: route.location, 'content-type': 'text/plain' },
          body: `Redirecting to ${route.location}`,
        });
      case 'oversize': {
        ex.writeHead(200, { 'content-type': route.contentType });
        if (head) return ex.end();
        let sent = 0;
        while (sent < route.totalBytes && !ex.closed) {
          const size = Math.min(route.chunkSize, route.totalBytes - sent);
          const chunk = Buffer.alloc(size);
          if (sent < PNG_SIGNATURE.length)
            PNG_SIGNATURE.copy(chunk, 0, sent, Math.min(PNG_SIGNATURE.length, sent + size));
          sent += size;
          if (!ex.res.write(chunk)) {
            await Promise.race([
              new Promise<void>((resolve) => ex.res.once('drain', () => resolve())),
              ex.untilClosed(),
            ]);
          }
        }
        return ex.end();
      }
    }
  }
}
