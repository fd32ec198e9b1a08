import { Injectable } from '@nestjs/common';
import { ApiError, isSafeFetchError, SafeFetcher, safeFetchErrorToApiError } from '@app/common';
import { MAX_FILE_BYTES, MAX_IMAGES, MAX_PDFS } from '../image-inliner';
import { DocumentReader, ReadDocument, UnreadableDocument } from './ports';

const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];
const IMAGE_EXTENSION = /\.(png|jpe?g|gif|webp)([?#]|$)/i;
const PDF_EXTENSION = /\.pdf([?#]|$)/i;

/** A PDF from file_urls, fetched and parsed, ready to join the context like a project file. */
export interface UrlPdf {
  /** `file_urls[i]` */
  param: string;
  url: string;
  title: string;
  doc: ReadDocument;
}

export interface ResolvedFileUrls {
  /** image URLs in request order (http(s) as given, or data: URLs) */
  images: string[];
  pdfs: UrlPdf[];
}

/**
 * file_urls → images and PDFs (≤ 10 PDFs and ≤ 20 images per request, ≤ 10 MB each).
 *
 * Kind by content, not by name: a URL with an image extension or a data:image/… URL goes the image
 * path unchanged (fetched or vetted later by ImageInliner); every other URL is fetched here through
 * the SSRF-guarded SafeFetcher and sniffed — `%PDF-` magic (or `application/pdf`) makes it a PDF,
 * an image content type makes it an image (passed on as a data: URL, so it is not fetched twice),
 * anything else is 400 `file_url_unsupported_type`. PDF text comes through the DocumentReader port (knowledge's parsers).
 */
@Injectable()
export class FileUrlResolver {
  constructor(
    private readonly fetcher: SafeFetcher,
    private readonly reader: DocumentReader,
  ) {}

  async resolve(urls: readonly string[]): Promise<ResolvedFileUrls> {
    urls.forEach((u, i) => {
      if (!/^(https?:\/\/|data:(image\/|application\/pdf))/i.test(u))
        throw ApiError.badRequest(
          `file_urls[${i}] must be an http(s) URL, a data:image/… or a data:application/pdf URL.`,
          `file_urls[${i}]`,
        );
    });
    // cheap limits first (by name), before anything is fetched
    const namedPdfs = urls.filter(
      (u) => /^data:application\/pdf/i.test(u) || (/^https?:/i.test(u) && PDF_EXTENSION.test(u)),
    ).length;
    if (namedPdfs > MAX_PDFS)
      throw ApiError.tooLarge(`At most ${MAX_PDFS} PDF files per request (got ${namedPdfs}).`, 'file_urls');
    const namedImages = urls.filter(
      (u) => /^data:image\//i.test(u) || (/^https?:/i.test(u) && IMAGE_EXTENSION.test(u)),
    ).length;
    if (namedImages > MAX_IMAGES)
      throw ApiError.tooLarge(`At most ${MAX_IMAGES} images per request (got ${namedImages}).`, 'file_urls');

    const images: string[] = [];
    const pdfs: UrlPdf[] = [];
    for (const [i, url] of urls.entries()) {
      const param = `file_urls[${i}]`;
      if (/^data:image\//i.test(url) || (/^https?:/i.test(url) && IMAGE_EXTENSION.test(url))) {
        images.push(url);
        continue;
      }
      const got = await this.fetch(url, param);
      const type = got.contentType.split(';')[0].trim().toLowerCase();
      if (isPdf(got.bytes)) {
        pdfs.push({ param, url, title: titleOf(url), doc: await this.extract(got.bytes, url, param) });
      } else if (IMAGE_TYPES.includes(type)) {
        images.push(`data:${type};base64,${got.bytes.toString('base64')}`);
      } else {
        throw ApiError.badRequest(
          `${param} is neither a PDF nor an image (png, jpeg, gif, webp); got ${type || 'unknown content'}.`,
          param,
          'file_url_unsupported_type',
        );
      }
    }
    if (pdfs.length > MAX_PDFS)
      throw ApiError.tooLarge(`At most ${MAX_PDFS} PDF files per request (got ${pdfs.length}).`, 'file_urls');
    if (images.length > MAX_IMAGES)
      throw ApiError.tooLarge(`At most ${MAX_IMAGES} images per request (got ${images.length}).`, 'file_urls');
    return { images, pdfs };
  }

  private async fetch(url: string, param: string) {
    try {
      return await this.fetcher.fetch(url, { maxBytes: MAX_FILE_BYTES, timeoutMs: 15_000 });
    } catch (err) {
      if (isSafeFetchError(err)) throw safeFetchErrorToApiError(err, param);
      throw ApiError.badRequest(`Could not fetch ${param}.`, param, 'file_url_fetch_failed');
    }
  }

  private async extract(bytes: Buffer, url: string, param: string): Promise<ReadDocument> {
    try {
      return await this.reader.readPdf(bytes, titleOf(url));
    } catch (err) {
      if (err instanceof UnreadableDocument) throw ApiError.badRequest(`${param}: ${err.message}`, param, err.code);
      throw err;
    }
  }
}

/** PDF magic within the first 1 KB (the PDF spec tolerates leading junk). */
export function isPdf(bytes: Buffer): boolean {
  return bytes.subarray(0, 1024).includes('%PDF-');
}

function titleOf(url: string): string {
  if (/^data:/i.test(url)) return 'document.pdf';
  try {
    const path = new URL(url).pathname;
    const last = decodeURIComponent(path.split('/').filter(Boolean).pop() ?? '');
    return last || new URL(url).hostname;
  } catch {
    return url.slice(0, 100);
  }
}
