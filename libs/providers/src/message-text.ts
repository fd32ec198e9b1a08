import { ChatMessage, ContentPart } from './types';

/** The text parts of a canonical message content, joined by newlines (images are skipped). */
export function contentText(content: ChatMessage['content']): string {
  if (content === null) return '';
  if (typeof content === 'string') return content;
  return content
    .filter((p): p is Extract<ContentPart, { type: 'text' }> => p.type === 'text')
    .map((p) => p.text)
    .join('\n');
}
