import { strFromU8 } from 'fflate';
import { InflateBudget, InflateLimits, unzipBounded, ZipFormatError } from '@app/common/isolation/bounded-inflate';
import { ChatExportError, ChatMessage } from './chat-message';

const MiB = 1024 * 1024;

/**
 * One export inflates to at most 100 MiB (counted while inflating: a zip bomb stops there), a member
 * past 1 MiB at most 200× its compressed size (Slack's JSON compresses ~10×), 100 000 members.
 */
export const SLACK_INFLATE_LIMITS: InflateLimits = {
  maxInflatedBytes: 100 * MiB,
  maxRatio: 200,
  ratioFloorBytes: MiB,
  maxEntries: 100_000,
};

interface SlackUser {
  id?: string;
  name?: string;
  real_name?: string;
  profile?: { real_name?: string; display_name?: string };
}
interface SlackMessage {
  type?: string;
  subtype?: string;
  user?: string;
  username?: string;
  bot_id?: string;
  text?: string;
  ts?: string;
  user_profile?: { real_name?: string; display_name?: string };
}

/** Joins, leaves, topic and purpose changes are not conversation. */
const SKIPPED_SUBTYPES = new Set([
  'channel_join',
  'channel_leave',
  'channel_topic',
  'channel_purpose',
  'channel_name',
  'channel_archive',
  'channel_unarchive',
  'group_join',
  'group_leave',
]);

/**
 * A Slack workspace export (`.zip`, unpacked with fflate): `users.json` names the authors; every
 * `<channel>/<YYYY-MM-DD>.json` is a list of messages. Mentions `<@U…>` become `@name`, links
 * `<url|label>` their label and URL. Channels and days in name order, messages by `ts`.
 */
export function parseSlackExport(zip: Buffer): ChatMessage[] {
  const files: Record<string, Uint8Array> = {};
  try {
    const entries = unzipBounded(
      new Uint8Array(zip.buffer, zip.byteOffset, zip.byteLength),
      new InflateBudget(SLACK_INFLATE_LIMITS, 'Slack export'),
      (name) => name.endsWith('.json'),
    );
    for (const e of entries) if (e.bytes) files[e.name] = e.bytes;
  } catch (err) {
    if (err instanceof ZipFormatError) throw new ChatExportError('The Slack export is not a readable .zip file.');
    throw err;
  }
  const names = new Map<string, string>();
  const usersFile = Object.keys(files).find((p) => p === 'users.json' || p.endsWith('/users.json'));
  if (usersFile) {
    for (const u of readJson<SlackUser[]>(files[usersFile], usersFile) ?? []) {
      if (u?.id) names.set(u.id, u.profile?.display_name || u.real_name || u.profile?.real_name || u.name || u.id);
    }
  }
  const days = Object.keys(files)
    .map((p) => ({ p, m: /(?:^|\/)([^/]+)\/(\d{4}-\d{2}-\d{2})\.json$/.exec(p) }))
    .filter((x): x is { p: string; m: RegExpExecArray } => x.m !== null)
    .sort((x, y) => (x.m[1] === y.m[1] ? x.m[2].localeCompare(y.m[2]) : x.m[1].localeCompare(y.m[1])));
  if (days.length === 0)
    throw new ChatExportError('Not a Slack export: no <channel>/<YYYY-MM-DD>.json files in the zip.');
  const out: ChatMessage[] = [];
  for (const { p, m } of days) {
    const messages = readJson<SlackMessage[]>(files[p], p);
    if (!Array.isArray(messages)) continue;
    const sorted = [...messages].sort((a, b) => Number(a?.ts ?? 0) - Number(b?.ts ?? 0));
    for (const msg of sorted) {
      if (msg?.type !== 'message' || (msg.subtype && SKIPPED_SUBTYPES.has(msg.subtype))) continue;
      const text = resolveMentions(msg.text ?? '', names);
      if (text.trim() === '') continue;
      const author =
        (msg.user && names.get(msg.user)) ||
        msg.user_profile?.display_name ||
        msg.user_profile?.real_name ||
        msg.username ||
        msg.user ||
        msg.bot_id ||
        'unknown';
      const seconds = Number(msg.ts);
      out.push({
        ts: Number.isFinite(seconds) ? new Date(Math.floor(seconds * 1000)).toISOString().replace('.000Z', 'Z') : null,
        author,
        text,
        chat: m[1],
      });
    }
  }
  return out;
}

function readJson<T>(bytes: Uint8Array, path: string): T | null {
  try {
    return JSON.parse(strFromU8(bytes)) as T;
  } catch {
    throw new ChatExportError(`The Slack export holds invalid JSON in ${path}.`);
  }
}

function resolveMentions(text: string, names: Map<string, string>): string {
  return text
    .replace(/<@([A-Z0-9]+)(?:\|([^>]+))?>/g, (_, id: string, label?: string) => `@${names.get(id) ?? label ?? id}`)
    .replace(/<#[A-Z0-9]+\|([^>]+)>/g, (_, ch: string) => `#${ch}`)
    .replace(/<!(here|channel|everyone)>/g, '@$1')
    .replace(/<((?:https?|mailto):[^|>]+)\|([^>]+)>/g, '$2 ($1)')
    .replace(/<((?:https?|mailto):[^>]+)>/g, '$1')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}
