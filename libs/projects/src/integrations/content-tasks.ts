/**
 * Integration content turned into text inside a parser worker (see ParserPool): responses of
 * external APIs (up to 10 MB of JSON, parsed and pretty-printed) and webhook transcripts (up to
 * 500 events of 256 KB each), off the event loop and within the worker's limits.
 */
import { renderTranscript } from '../messenger/chat-message';
import { apiResponseText, webhookEventMessage } from '../project-rules';

export function responseText(bytes: Buffer, jsonPath: string | null): { text: string; json: boolean } {
  return apiResponseText(bytes, jsonPath);
}

export function webhookTranscript(events: { receivedAt: number; webhookId: string; payload: string }[]): string {
  return renderTranscript(events.map((e) => webhookEventMessage(e.receivedAt, e.webhookId, e.payload)));
}
