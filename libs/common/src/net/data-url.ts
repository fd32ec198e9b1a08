import { contentTypeAllowed, mediaType, tooLarge } from './fetch-support';
import { SafeFetchError } from './safe-fetch-error';
import type { SafeFetchResult } from './safe-fetch-types';

const MIME_TYPE = /^[!#$%&'*+.^_`|~0-9a-z-]+\/[!#$%&'*+.^_`|~0-9a-z-]+$/;
const BASE64_BODY = /^[A-Za-z0-9+/]*$/;

/** Decodes a `data:` URL without any network access (RFC 2397 / WHATWG fetch "data: URL processor"). */
export function decodeDataUrl(input: string, maxBytes: number, accept?: readonly string[]): SafeFetchResult {
  const text = trimC0(input);
  const comma = text.indexOf(',');
  if (!/^data:/i.test(text) || comma === -1) {
    throw new SafeFetchError('invalid_url', 'Invalid data: URL');
  }
  let meta = text.slice(5, comma).trim();
  let isBase64 = false;
  const b64 = /;\s*base64\s*$/i.exec(meta);
  if (b64 !== null) {
    isBase64 = true;
    meta = meta.slice(0, b64.index).trim();
  }
  const essence = mediaType(meta);
  const contentType = MIME_TYPE.test(essence) ? meta : 'text/plain;charset=US-ASCII';
  if (!contentTypeAllowed(contentType, accept)) {
    throw new SafeFetchError('unsupported_type', `Content type ${mediaType(contentType)} is not accepted`, {
      contentType,
    });
  }

  const payload = text.slice(comma + 1);
  let bytes: Buffer;
  if (isBase64) {
    let data = payload.includes('%') ? percentDecode(payload).toString('latin1') : payload;
    data = data.replace(/[\t\n\f\r ]/g, '');
    if (data.length % 4 === 0) data = data.replace(/={1,2}$/, '');
    if (data.length % 4 === 1 || !BASE64_BODY.test(data)) {
      throw new SafeFetchError('invalid_url', 'Invalid base64 in data: URL');
    }
    const size = Math.floor((data.length * 3) / 4);
    if (size > maxBytes) throw tooLarge(maxBytes);
    bytes = Buffer.from(data, 'base64');
  } else {
    // Percent-decoding shrinks at most 3:1, so this bound is safe to check before decoding.
    if (Math.ceil(Buffer.byteLength(payload) / 3) > maxBytes) throw tooLarge(maxBytes);
    bytes = percentDecode(payload);
    if (bytes.length > maxBytes) throw tooLarge(maxBytes);
  }
  return { bytes, contentType, finalUrl: input };
}

/** Strips leading/trailing C0 controls and spaces, as the URL parser does. */
export function trimC0(input: string): string {
  let start = 0;
  let end = input.length;
  while (start < end && input.charCodeAt(start) <= 0x20) start++;
  while (end > start && input.charCodeAt(end - 1) <= 0x20) end--;
  return input.slice(start, end);
}

function hexValue(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  if (code >= 0x41 && code <= 0x46) return code - 0x37;
  if (code >= 0x61 && code <= 0x66) return code - 0x57;
  return -1;
}

/** WHATWG percent-decode of the UTF-8 bytes of `input` (invalid escapes are kept literally). */
function percentDecode(input: string): Buffer {
  const src = Buffer.from(input, 'utf8');
  const out = Buffer.allocUnsafe(src.length);
  let n = 0;
  for (let i = 0; i < src.length; i++) {
    const byte = src[i];
    if (byte === 0x25 && i + 2 < src.length) {
      const hi = hexValue(src[i + 1]);
      const lo = hexValue(src[i + 2]);
      if (hi !== -1 && lo !== -1) {
        out[n++] = (hi << 4) | lo;
        i += 2;
        continue;
      }
    }
    out[n++] = byte;
  }
  return out.subarray(0, n);
}
