import { Injectable } from '@nestjs/common';
import { ApiError, decodeDataUrl, isSafeFetchError, SafeFetcher, safeFetchErrorToApiError } from '@app/common';
import type { ChatMessage, ContentPart } from '@app/providers';

export const MAX_IMAGES = 20;
export const MAX_PDFS = 10;
export const MAX_FILE_BYTES = 10 * 1024 * 1024;
const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];

/**
 * Images for providers that need bytes: http(s) URLs are fetched through the SSRF-guarded
 * SafeFetcher (≤ 10 MB, capped while streaming) and replaced by data: URLs. For providers that
 * fetch URLs themselves (OpenAI-compatible) every URL must pass the same address policy — DNS
 * resolved, every address checked — before it is forwarded (a self-hosted upstream would otherwise
 * fetch internal addresses for the caller). data: URLs are size- and type-checked for every provider.
 */
@Injectable()
export class ImageInliner {
  constructor(private readonly fetcher: SafeFetcher) {}

  async prepare(messages: ChatMessage[], inline: boolean, paramPrefix: string): Promise<ChatMessage[]> {
    const out: ChatMessage[] = [];
    let n = 0;
    for (const m of messages) {
      if (!Array.isArray(m.content)) {
        out.push(m);
        continue;
      }
      const parts: ContentPart[] = [];
      for (const p of m.content) {
        if (p.type !== 'image_url') {
          parts.push(p);
          continue;
        }
        const param = `${paramPrefix}[${n++}]`;
        const url = p.image_url.url;
        if (url.startsWith('data:')) {
          this.guard(() => decodeDataUrl(url, MAX_FILE_BYTES, IMAGE_TYPES), param);
          parts.push(p);
        } else if (inline) {
          const got = await this.guardAsync(
            () => this.fetcher.fetch(url, { maxBytes: MAX_FILE_BYTES, accept: IMAGE_TYPES, timeoutMs: 15_000 }),
            param,
          );
          const type = got.contentType.split(';')[0].trim().toLowerCase();
          parts.push({
            type: 'image_url',
            image_url: { ...p.image_url, url: `data:${type};base64,${got.bytes.toString('base64')}` },
          });
        } else {
          // the provider will fetch it: the same address policy applies before the URL leaves
          await this.guardAsync(() => this.fetcher.assertPublicUrl(url), param);
          parts.push(p);
        }
      }
      out.push({ ...m, content: parts });
    }
    return out;
  }

  private guard<T>(fn: () => T, param: string): T {
    try {
      return fn();
    } catch (err) {
      throw isSafeFetchError(err) ? safeFetchErrorToApiError(err, param) : err;
    }
  }

  private async guardAsync<T>(fn: () => Promise<T>, param: string): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (isSafeFetchError(err)) throw safeFetchErrorToApiError(err, param);
      if (err instanceof ApiError) throw err;
      throw ApiError.badRequest(`Could not fetch ${param}.`, param, 'file_url_fetch_failed');
    }
  }
}
