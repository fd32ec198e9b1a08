/** A message of a chat, normalised from any source (attached chat, Telegram, WhatsApp, Slack, webhook). */
export interface ChatMessage {
  /** ISO-8601 time as the source gave it (exports without a zone stay local time), or null */
  ts: string | null;
  author: string;
  text: string;
  /** the chat or channel, when one export holds several */
  chat?: string;
}

/** A parse failure with the reason shown to the caller (400). */
export class ChatExportError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ChatExportError';
  }
}

/**
 * The transcript text indexed for a chat: one message per unit — its first line at column 0
 * (`[ts] #chat author: text`), continuation lines indented by two spaces — which is the form
 * knowledge's message-window chunking splits on, so a chunk never cuts a message.
 */
export function renderTranscript(messages: ChatMessage[]): string {
  return messages
    .filter((m) => m.text.trim() !== '')
    .map((m) => {
      const head = [m.ts ? `[${m.ts}]` : null, m.chat ? `#${m.chat}` : null, `${oneLine(m.author) || 'unknown'}:`]
        .filter(Boolean)
        .join(' ');
      const lines = m.text.replace(/\r\n?/g, '\n').trim().split('\n');
      return [`${head} ${lines[0]}`, ...lines.slice(1).map((l) => `  ${l}`)].join('\n');
    })
    .join('\n');
}

const oneLine = (s: string): string => s.replace(/\s+/g, ' ').trim();
