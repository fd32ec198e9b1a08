import { ChatExportError, ChatMessage } from './chat-message';

interface TgEntity {
  type?: string;
  text?: string;
  href?: string;
}
interface TgMessage {
  type?: string;
  date?: string;
  from?: string | null;
  actor?: string | null;
  text?: string | (string | TgEntity)[];
}
interface TgChat {
  name?: string | null;
  type?: string;
  messages?: TgMessage[];
}

/**
 * Telegram Desktop's JSON export (`result.json`): a single chat (`{name, type, messages}`) or a full
 * account export (`{chats: {list: [...]}, left_chats: {list: [...]}}`). Text is a string or a list of
 * strings and entities (`{type, text}`); links keep their `href`. Service messages (joins, pins, calls)
 * and messages without text (stickers, media without caption) are skipped.
 */
export function parseTelegramExport(json: string): ChatMessage[] {
  let root: unknown;
  try {
    root = JSON.parse(json.replace(/^\uFEFF/, ''));
  } catch {
    throw new ChatExportError("The Telegram export is not valid JSON (expected Telegram Desktop's result.json).");
  }
  if (typeof root !== 'object' || root === null)
    throw new ChatExportError('The Telegram export must be a JSON object.');
  const r = root as { messages?: unknown; chats?: { list?: unknown }; left_chats?: { list?: unknown } };
  if (Array.isArray(r.messages)) return chatMessages(r as TgChat, undefined);
  const lists = [r.chats?.list, r.left_chats?.list].filter(Array.isArray) as TgChat[][];
  if (lists.length === 0)
    throw new ChatExportError(
      'Not a Telegram Desktop export: expected "messages" (one chat) or "chats.list" (full export).',
    );
  return lists.flat().flatMap((chat) => chatMessages(chat, chat.name ?? `${chat.type ?? 'chat'}`));
}

function chatMessages(chat: TgChat, name: string | undefined): ChatMessage[] {
  if (!Array.isArray(chat.messages)) return [];
  const out: ChatMessage[] = [];
  for (const m of chat.messages) {
    if (m?.type !== 'message') continue;
    const text = textOf(m.text);
    if (text.trim() === '') continue;
    out.push({
      ts: typeof m.date === 'string' ? m.date : null,
      author: m.from ?? 'unknown',
      text,
      ...(name !== undefined ? { chat: name } : {}),
    });
  }
  return out;
}

function textOf(t: TgMessage['text']): string {
  if (typeof t === 'string') return t;
  if (!Array.isArray(t)) return '';
  return t
    .map((part) => {
      if (typeof part === 'string') return part;
      const s = part?.text ?? '';
      return part?.type === 'text_link' && part.href && part.href !== s ? `${s} (${part.href})` : s;
    })
    .join('');
}
