import { ApiRequestError, authHeaders, type ApiErrorBody } from './client';

/**
 * Downloads a file the API answers (a PDF document) with the current credential: a plain link
 * cannot carry the admin token, so the file is fetched and handed to the browser as a blob. The
 * name comes from the answer's Content-Disposition, else `fallbackName`.
 */
export async function downloadFile(url: string, fallbackName: string): Promise<void> {
  const res = await fetch(url, { headers: authHeaders('GET'), credentials: 'same-origin' });
  if (!res.ok) {
    let err: ApiErrorBody['error'];
    try {
      err = ((await res.json()) as ApiErrorBody).error;
    } catch {
      // not JSON
    }
    throw new ApiRequestError(err?.message ?? `${res.status} ${res.statusText}`, res.status, err?.code, err?.param);
  }
  const name = /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1] ?? fallbackName;
  const href = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = href;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(href), 10_000);
}
