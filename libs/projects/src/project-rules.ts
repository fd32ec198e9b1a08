/** Pure rules of projects: defaults, RAG settings, JSON paths, material text. Unit-tested beside this file. */
import type { ProjectRagSettings } from '@app/chat/context/ports';

export const DEFAULT_RAG: ProjectRagSettings = { top_k: 15, rerank: true, file_threshold: 0.3, kb_threshold: 0.1 };

/** Webhook events kept per integration (the newest). */
export const MAX_WEBHOOK_EVENTS = 500;
/** Largest webhook event body accepted. */
export const MAX_WEBHOOK_EVENT_BYTES = 256 * 1024;

export function mergeRag(base: ProjectRagSettings, patch: Partial<ProjectRagSettings> | undefined): ProjectRagSettings {
  const out = { ...base };
  if (patch?.top_k !== undefined) out.top_k = patch.top_k;
  if (patch?.rerank !== undefined) out.rerank = patch.rerank;
  if (patch?.file_threshold !== undefined) out.file_threshold = patch.file_threshold;
  if (patch?.kb_threshold !== undefined) out.kb_threshold = patch.kb_threshold;
  return out;
}

export function parseRag(json: string): ProjectRagSettings {
  try {
    return mergeRag(DEFAULT_RAG, JSON.parse(json) as Partial<ProjectRagSettings>);
  } catch {
    return { ...DEFAULT_RAG };
  }
}

/**
 * A dotted JSON path: `a.b[0].c`, with an optional leading `$` / `$.`. Returns undefined when a
 * step is missing. (The subset of JSONPath that selects one value — no wildcards or filters.)
 */
export function selectJsonPath(value: unknown, path: string): unknown {
  const steps = parseJsonPath(path);
  let cur: unknown = value;
  for (const s of steps) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = typeof s === 'number' ? (Array.isArray(cur) ? cur[s] : undefined) : (cur as Record<string, unknown>)[s];
    if (cur === undefined) return undefined;
  }
  return cur;
}

export function parseJsonPath(path: string): (string | number)[] {
  const p = path.trim().replace(/^\$\.?/, '');
  if (p === '') return [];
  const steps: (string | number)[] = [];
  const re = /([^.[\]]+)|\[(\d+)\]|\[["']([^"']+)["']\]|(\.)/gy;
  let m: RegExpExecArray | null;
  let last = 0;
  while ((m = re.exec(p)) !== null) {
    last = re.lastIndex;
    if (m[1] !== undefined) steps.push(m[1]);
    else if (m[2] !== undefined) steps.push(Number(m[2]));
    else if (m[3] !== undefined) steps.push(m[3]);
  }
  if (last !== p.length) throw new Error(`Invalid json_path "${path}": use a dotted path like data.items[0].name.`);
  return steps;
}

/** Text to index from an API response: JSON (optionally one part of it) pretty-printed, else the text as is. */
export function apiResponseText(bytes: Buffer, jsonPath: string | null): { text: string; json: boolean } {
  const raw = bytes.toString('utf8').replace(/^\uFEFF/, '');
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    if (jsonPath) throw new Error('json_path is set but the response is not JSON.');
    return { text: raw, json: false };
  }
  const picked = jsonPath ? selectJsonPath(parsed, jsonPath) : parsed;
  if (picked === undefined) throw new Error(`json_path "${jsonPath}" selects nothing in the response.`);
  return typeof picked === 'string'
    ? { text: picked, json: false }
    : { text: JSON.stringify(picked, null, 2), json: true };
}

/** A webhook event as one transcript message: its payload (JSON pretty-printed) under a header line. */
export function webhookEventMessage(
  receivedAtMs: number,
  webhookId: string,
  payload: string,
): { ts: string; author: string; text: string } {
  let text = payload;
  try {
    text = JSON.stringify(JSON.parse(payload), null, 2);
  } catch {
    /* not JSON: as received */
  }
  return { ts: new Date(receivedAtMs).toISOString(), author: `event ${webhookId}`, text };
}

/** The type of an image by its magic numbers (PNG, JPEG, GIF, WebP), else null. */
export function imageMime(bytes: Buffer): string | null {
  if (bytes.length >= 8 && bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    return 'image/png';
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (bytes.length >= 6 && /^GIF8[79]a$/.test(bytes.subarray(0, 6).toString('latin1'))) return 'image/gif';
  if (
    bytes.length >= 12 &&
    bytes.subarray(0, 4).toString('latin1') === 'RIFF' &&
    bytes.subarray(8, 12).toString('latin1') === 'WEBP'
  )
    return 'image/webp';
  return null;
}
