import { ApiRequestError, authHeaders, type ApiErrorBody } from './client';

/**
 * A multipart upload with progress (fetch cannot report upload progress; XMLHttpRequest can).
 * Resolves with the parsed JSON answer; rejects with the server's error message.
 */
export function uploadWithProgress<T>(
  url: string,
  form: FormData,
  onProgress: (fraction: number) => void,
  signal?: AbortSignal,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', url);
    xhr.withCredentials = true;
    for (const [k, v] of Object.entries(authHeaders('POST'))) xhr.setRequestHeader(k, v);
    xhr.upload.onprogress = (e) => e.lengthComputable && onProgress(e.loaded / e.total);
    xhr.onload = () => {
      let body: unknown = null;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        // not JSON
      }
      if (xhr.status >= 200 && xhr.status < 300) {
        onProgress(1);
        resolve(body as T);
      } else {
        const err = (body as ApiErrorBody | null)?.error;
        reject(
          new ApiRequestError(err?.message ?? `${xhr.status} ${xhr.statusText}`, xhr.status, err?.code, err?.param),
        );
      }
    };
    xhr.onerror = () => reject(new ApiRequestError('Network error', 0));
    signal?.addEventListener('abort', () => xhr.abort());
    xhr.send(form);
  });
}
