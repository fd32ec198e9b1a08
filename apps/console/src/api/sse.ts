import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { ApiRequestError, authHeaders, type ApiErrorBody } from './client';

/** POSTs a JSON body and hands each Server-Sent Event to `onEvent` as it arrives. */
export async function postStream(
  url: string,
  body: unknown,
  onEvent: (event: string, data: unknown) => void,
  signal?: AbortSignal,
): Promise<void> {
  const res = await fetch(url, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...authHeaders('POST') },
    body: JSON.stringify(body),
    signal,
  });
  if (!res.ok || !res.body) {
    const err = (await res.json().catch(() => null)) as ApiErrorBody | null;
    throw new ApiRequestError(err?.error?.message ?? `${res.status} ${res.statusText}`, res.status, err?.error?.code);
  }
  const parser = createParser({
    onEvent(msg: EventSourceMessage) {
      if (msg.data === '[DONE]') return;
      let data: unknown = msg.data;
      try {
        data = JSON.parse(msg.data);
      } catch {
        // plain text data
      }
      onEvent(msg.event ?? 'message', data);
    },
  });
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parser.feed(value);
  }
}
