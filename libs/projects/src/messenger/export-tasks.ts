/**
 * Chat-export parsing as it runs inside a parser worker (see ParserPool): off the event loop, within
 * the worker's memory and time limits.
 */
import { ChatMessage } from './chat-message';
import { parseSlackExport } from './slack';
import { parseTelegramExport } from './telegram';
import { parseWhatsAppExport } from './whatsapp';

export type ChatExportFormat = 'telegram' | 'whatsapp' | 'slack';

export function parseChatExport(format: ChatExportFormat, bytes: Buffer): ChatMessage[] {
  if (format === 'slack') return parseSlackExport(bytes);
  if (format === 'telegram') return parseTelegramExport(bytes.toString('utf8'));
  return parseWhatsAppExport(bytes.toString('utf8'));
}
