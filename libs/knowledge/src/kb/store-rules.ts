import { randomBytes } from 'node:crypto';
import { ApiError } from '@app/common';
import { ModelCatalogService, ModelEntry, policyAllowsModel } from '@app/providers';
import type { DataPolicy } from '@app/data-protection/policy';
import type { DocumentKind, VectorStoreEntity } from '../entities/knowledge.entities';
import type { Attributes, Chunking } from '../kb-rules';
import type { StoreStats } from '../knowledge.repository';

/**
 * The rules of knowledge bases that need no state: limits, ids, expiry, link URLs and the errors
 * the knowledge services answer with.
 */

/** Spec section 8: per knowledge base. */
export const MAX_DOCUMENTS = 100;
export const MAX_LINKS = 100;

export const newStoreId = (): string => `vs_${randomBytes(12).toString('hex')}`;
export const newBatchId = (): string => `vsfb_${randomBytes(12).toString('hex')}`;

export interface NewStore {
  name?: string | null;
  description?: string | null;
  metadata?: unknown;
  embedding_model?: string;
  file_ids?: string[];
  chunking_strategy?: unknown;
  expires_after?: unknown;
}

export interface NewDocumentFile {
  file_id: string;
  attributes?: unknown;
  chunking_strategy?: unknown;
}

/** A document about to be attached to a store. */
export interface NewDocument {
  fileId: string;
  kind: DocumentKind;
  attributes: Attributes | null;
  chunking: Chunking;
  batchId: string | null;
  url?: string;
  title?: string;
  filename?: string;
  /** sha256 of the bytes (files and texts) */
  contentHash?: string;
  /**
   * Versions by content and name (REST uploads and texts): the same content again answers the
   * existing document; with `replace`, a new content under an existing name replaces that document.
   */
  versions?: { replace: boolean };
}

export interface StoreView {
  store: VectorStoreEntity;
  stats: StoreStats;
  /** the time of the read (ms): whether the store has expired */
  now: number;
}

/**
 * The embedding model of new knowledge bases: text-embedding-3-small with an OpenAI key (and a
 * data policy that lets the team's texts reach it), else the local lexical embedder (1536).
 */
export function defaultEmbeddingModel(
  catalog: ModelCatalogService,
  policy?: Pick<DataPolicy, 'residency'> | null,
): ModelEntry {
  const remote = catalog.find('text-embedding-3-small');
  if (remote && catalog.isAvailable(remote) && policyAllowsModel(policy, remote)) return remote;
  return catalog.require('local-embedding-small', 'embedding');
}

export function storeNotFound(id: string): ApiError {
  return ApiError.notFound(`No such knowledge base (vector store): ${id}`, 'vector_store_not_found', 'vector_store_id');
}

export function documentNotFound(storeId: string, docId: string): ApiError {
  return ApiError.notFound(`No such document in ${storeId}: ${docId}`, 'file_not_found', 'file_id');
}

export function parseLinkUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw ApiError.badRequest('url must be an absolute http(s) URL.', 'url');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw ApiError.badRequest('url must use http or https.', 'url');
  if (url.username || url.password) throw ApiError.badRequest('url must not carry credentials.', 'url');
  return url;
}

/** Whether a store with expires_after has gone `days` without activity. */
export function isExpired(store: Pick<VectorStoreEntity, 'expiresAfterDays' | 'lastActiveAt'>, now: number): boolean {
  return store.expiresAfterDays !== null && now >= expiryTime(store)!;
}

/** When the store expires (ms), or null when it never does. */
export function expiryTime(store: Pick<VectorStoreEntity, 'expiresAfterDays' | 'lastActiveAt'>): number | null {
  return store.expiresAfterDays === null ? null : store.lastActiveAt + store.expiresAfterDays * 86_400_000;
}

export function expiredStore(id: string): ApiError {
  return ApiError.badRequest(
    `The vector store ${id} has expired (expires_after); create a new one.`,
    'vector_store_id',
    'vector_store_expired',
  );
}

/**
 * OpenAI `expires_after`: {anchor: "last_active_at", days: 1…365}. undefined = not given, null =
 * never expires (also how an update removes it).
 */
export function parseExpiresAfter(v: unknown): number | null | undefined {
  if (v === undefined) return undefined;
  if (v === null) return null;
  const o = v as Record<string, unknown>;
  if (typeof v !== 'object' || Array.isArray(v) || o.anchor !== 'last_active_at')
    throw ApiError.badRequest(
      'expires_after must be {anchor: "last_active_at", days: 1…365}.',
      'expires_after.anchor',
      'invalid_value',
    );
  const days = o.days;
  if (typeof days !== 'number' || !Number.isInteger(days) || days < 1 || days > 365)
    throw ApiError.badRequest(
      'expires_after.days must be an integer from 1 to 365.',
      'expires_after.days',
      'invalid_value',
    );
  return days;
}
