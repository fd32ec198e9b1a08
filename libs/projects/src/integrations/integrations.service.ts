import { Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import {
  ApiError,
  Clock,
  newWebhookSecret,
  ParseLimitError,
  ParserPool,
  ParserTask,
  ParserTaskError,
  SafeFetcher,
  SafeFetchError,
  verifyWebhook,
} from '@app/common';
import { AppConfig } from '@app/config';
import type { Caller } from '@app/auth';
import { KnowledgeStore, MAX_FILE_BYTES } from '@app/knowledge';
import { CreateIntegrationDto, IntegrationDto, SyncResultDto, WebhookAckDto } from '../dto/projects.dto';
import { ProjectIntegrationEntity } from '../entities/project.entities';
import { MAX_WEBHOOK_EVENT_BYTES, MAX_WEBHOOK_EVENTS, parseJsonPath } from '../project-rules';
import { ProjectsRepository } from '../projects.repository';
import { projectNotFound, ProjectsService } from '../projects.service';
import { IntegrationSecrets } from './integration-secrets';

export const newIntegrationId = (): string => `int_${randomBytes(12).toString('hex')}`;

const LEASE_MS = 60_000;
const FETCH_TIMEOUT_MS = 15_000;
const DEFAULT_INTERVAL_SECONDS = 3600;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}$/;
const seconds = (ms: number | null): number | null => (ms === null ? null : Math.floor(ms / 1000));
const HOLDER = 'A project';
/** API responses and webhook transcripts become text in a parser worker (content-tasks.ts). */
const CONTENT_TASKS = join(__dirname, 'content-tasks');
const RESPONSE_TEXT_TASK: ParserTask = { module: CONTENT_TASKS, fn: 'responseText' };
const WEBHOOK_TRANSCRIPT_TASK: ParserTask = { module: CONTENT_TASKS, fn: 'webhookTranscript' };

/** A worker's failure as the error the integration records (the task's own message, or the limit). */
function contentError(err: unknown): unknown {
  if (err instanceof ParseLimitError || err instanceof ParserTaskError) return new Error(err.message);
  return err;
}

/**
 * API integrations of projects. Webhooks: Standard Webhooks signatures, each event (≤ 256 KB) a
 * message of the integration's transcript document (newest 500 kept; a repeated webhook-id is
 * ignored). External APIs: fetched through the SSRF guard on a durable schedule (`next_run_at` in the
 * database, claimed under a lease so one replica fetches) and on demand; an unchanged response
 * (same content hash) is not re-indexed.
 */
@Injectable()
export class IntegrationsService implements OnModuleInit, OnApplicationShutdown {
  private readonly log = new Logger('Integrations');
  private readonly owner = `i-${randomUUID().slice(0, 8)}`;
  private timer: NodeJS.Timeout | null = null;
  private busy = false;
  private stopped = false;
  private current: Promise<void> | null = null;

  constructor(
    private readonly repo: ProjectsRepository,
    private readonly projects: ProjectsService,
    private readonly kb: KnowledgeStore,
    private readonly secrets: IntegrationSecrets,
    private readonly fetcher: SafeFetcher,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly parsers: ParserPool,
  ) {}

  onModuleInit(): void {
    this.timer = setInterval(() => void this.tick(), this.config.integrationPollMs);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.current?.catch(() => undefined);
  }

  // ── create ─────────────────────────────────────────────────────────────────────────────────────

  async create(caller: Caller, projectId: string, dto: CreateIntegrationDto): Promise<IntegrationDto> {
    const p = await this.projects.require(caller.teamId, projectId);
    const id = newIntegrationId();
    const now = this.clock.now();
    const base: ProjectIntegrationEntity = {
      id,
      projectId: p.id,
      teamId: p.teamId,
      materialId: '',
      type: dto.type,
      name: dto.name,
      secretEnc: null,
      url: null,
      method: null,
      headersEnc: null,
      headerNames: null,
      body: null,
      jsonPath: null,
      intervalSeconds: null,
      nextRunAt: null,
      leaseOwner: null,
      leaseUntil: null,
      contentHash: null,
      lastRunAt: null,
      lastError: null,
      createdAt: now,
    };
    if (dto.type === 'webhook') {
      const secret = newWebhookSecret();
      const row = { ...base, secretEnc: await this.secrets.seal(secret) };
      const material = this.projects.newMaterial(p, 'webhook', dto.name, {
        integrationId: id,
        url: hookPath(id),
        ownsFile: 1,
      });
      row.materialId = material.id;
      if (!(await this.repo.insertIntegration(row, material))) throw projectNotFound(p.id);
      return { ...this.toIntegration(row), secret };
    }
    const row = { ...base, ...(await this.externalSettings(dto)), nextRunAt: now };
    const material = this.projects.newMaterial(p, 'external_api', dto.name, {
      integrationId: id,
      url: row.url,
      ownsFile: 1,
    });
    row.materialId = material.id;
    if (!(await this.repo.insertIntegration(row, material))) throw projectNotFound(p.id);
    setImmediate(() => void this.tick());
    return this.toIntegration(row);
  }

  private async externalSettings(dto: CreateIntegrationDto): Promise<Partial<ProjectIntegrationEntity>> {
    if (!dto.url) throw ApiError.badRequest('url is required for an external_api integration.', 'url');
    let url: URL;
    try {
      url = new URL(dto.url);
    } catch {
      throw ApiError.badRequest('url must be an absolute http(s) URL.', 'url');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw ApiError.badRequest('url must use http or https.', 'url');
    if (url.username || url.password)
      throw ApiError.badRequest('url must not carry credentials (put them in headers).', 'url');
    const headers: Record<string, string> = {};
    if (dto.headers !== undefined && dto.headers !== null) {
      if (typeof dto.headers !== 'object' || Array.isArray(dto.headers))
        throw ApiError.badRequest('headers must be an object of header names to string values.', 'headers');
      const entries = Object.entries(dto.headers as Record<string, unknown>);
      if (entries.length > 32) throw ApiError.badRequest('headers may hold at most 32 headers.', 'headers');
      for (const [k, v] of entries) {
        if (!HEADER_NAME.test(k))
          throw ApiError.badRequest(`headers: "${k.slice(0, 64)}" is not a valid header name.`, 'headers');
        if (typeof v !== 'string' || v.length > 8192 || /[\r\n\0]/.test(v))
          throw ApiError.badRequest(`headers.${k} must be a single-line string (≤ 8192 characters).`, `headers.${k}`);
        headers[k.toLowerCase()] = v;
      }
    }
    const method = dto.method ?? 'GET';
    let body: string | null = null;
    if (dto.body !== undefined && dto.body !== null) {
      if (method !== 'POST') throw ApiError.badRequest('body is only sent with method POST.', 'body');
      body = typeof dto.body === 'string' ? dto.body : JSON.stringify(dto.body);
      if (typeof dto.body !== 'string' && !headers['content-type']) headers['content-type'] = 'application/json';
      if (Buffer.byteLength(body) > 64 * 1024) throw ApiError.badRequest('body must be at most 64 KB.', 'body');
    }
    if (dto.json_path) {
      try {
        parseJsonPath(dto.json_path);
      } catch (err) {
        throw ApiError.badRequest((err as Error).message, 'json_path');
      }
    }
    const names = Object.keys(headers);
    return {
      url: url.toString(),
      method,
      headersEnc: names.length > 0 ? await this.secrets.seal(JSON.stringify(headers)) : null,
      headerNames: JSON.stringify(names),
      body,
      jsonPath: dto.json_path ?? null,
      intervalSeconds: dto.interval_seconds ?? DEFAULT_INTERVAL_SECONDS,
    };
  }

  toIntegration(i: ProjectIntegrationEntity): IntegrationDto {
    const base = {
      id: i.id,
      object: 'project.integration' as const,
      type: i.type,
      name: i.name,
      material_id: i.materialId,
      created_at: Math.floor(i.createdAt / 1000),
    };
    if (i.type === 'webhook') return { ...base, url: hookPath(i.id), last_error: i.lastError };
    return {
      ...base,
      url: i.url!,
      method: i.method ?? 'GET',
      header_names: i.headerNames ? (JSON.parse(i.headerNames) as string[]) : [],
      json_path: i.jsonPath,
      interval_seconds: i.intervalSeconds ?? DEFAULT_INTERVAL_SECONDS,
      next_run_at: seconds(i.nextRunAt),
      last_run_at: seconds(i.lastRunAt),
      last_error: i.lastError,
    };
  }

  // ── webhooks ───────────────────────────────────────────────────────────────────────────────────

  /** A delivery to /api/v1/hooks/{id}: verified by signature (no API key), stored once per webhook-id. */
  async receive(
    integrationId: string,
    headers: { id?: string; timestamp?: string; signature?: string },
    body: unknown,
  ): Promise<WebhookAckDto> {
    const i = await this.repo.findIntegration(integrationId);
    if (!i || i.type !== 'webhook' || !i.secretEnc)
      throw ApiError.notFound(`No such webhook: ${integrationId}`, 'not_found', null);
    const raw = Buffer.isBuffer(body) ? body : Buffer.alloc(0);
    if (raw.length > MAX_WEBHOOK_EVENT_BYTES)
      throw ApiError.tooLarge(`A webhook event is limited to ${MAX_WEBHOOK_EVENT_BYTES / 1024} KB.`);
    const verdict = verifyWebhook(
      await this.secrets.open(i.secretEnc),
      headers,
      raw,
      Math.floor(this.clock.now() / 1000),
    );
    if (!verdict.ok)
      throw ApiError.unauthorized(`Webhook signature verification failed: ${verdict.reason}`, 'invalid_signature');
    let payload: string;
    try {
      payload = new TextDecoder('utf-8', { fatal: true }).decode(raw);
    } catch {
      throw ApiError.badRequest('The webhook body must be UTF-8 text (JSON or plain text).', null);
    }
    if (payload.includes('\u0000'))
      throw ApiError.badRequest('The webhook body contains a NUL character.', null, 'invalid_characters');
    const added = await this.repo.addEvent(
      { integrationId: i.id, webhookId: headers.id!.slice(0, 256), receivedAt: this.clock.now(), payload },
      MAX_WEBHOOK_EVENTS,
    );
    if (!added) return { received: true, duplicate: true };
    await this.reindexWebhook(i);
    return { received: true, duplicate: false };
  }

  private async reindexWebhook(i: ProjectIntegrationEntity): Promise<void> {
    const events = await this.repo.eventsOf(i.id);
    let text: string;
    try {
      text = await this.parsers.run<string>(
        WEBHOOK_TRANSCRIPT_TASK,
        events.map((e) => ({ receivedAt: e.receivedAt, webhookId: e.webhookId, payload: e.payload })),
      );
    } catch (err) {
      // the event is stored; the transcript is rebuilt with the next event
      if (err instanceof ParseLimitError) {
        this.log.warn(`integration ${i.id}: webhook transcript not rebuilt: ${err.message}`);
        return;
      }
      throw contentError(err);
    }
    if (text.trim() === '') return;
    await this.writeText(i, text, 'messages');
  }

  /** Creates the integration's document with the first content, or replaces its text. */
  private async writeText(
    i: ProjectIntegrationEntity,
    text: string,
    chunking: 'auto' | 'messages',
    filename = `${i.type}.md`,
  ): Promise<void> {
    const project = await this.projects.require(i.teamId, i.projectId);
    const material = await this.repo.findMaterial(project.id, i.materialId);
    if (!material) return;
    if (material.documentId) {
      await this.kb.replaceInternalText(i.teamId, project.storeId, material.documentId, text);
      return;
    }
    const doc = await this.kb.addInternalDocument(
      i.teamId,
      project.storeId,
      { type: 'text', title: i.name, filename, text, chunking },
      HOLDER,
    );
    if (!(await this.repo.setMaterialDocument(material.id, doc.id))) {
      // a concurrent delivery created the document first: keep that one
      await this.kb.deleteInternalDocument(i.teamId, project.storeId, doc.id, { deleteFile: true });
      const again = await this.repo.findMaterial(project.id, material.id);
      if (again?.documentId) await this.kb.replaceInternalText(i.teamId, project.storeId, again.documentId, text);
    }
  }

  // ── external APIs ──────────────────────────────────────────────────────────────────────────────

  /** POST …/integrations/{id}/sync: fetch now (if no replica is fetching it right now). */
  async sync(caller: Caller, projectId: string, integrationId: string): Promise<SyncResultDto> {
    const p = await this.projects.require(caller.teamId, projectId);
    const i = await this.repo.findIntegration(integrationId);
    if (!i || i.projectId !== p.id)
      throw ApiError.notFound(`No such integration in ${p.id}: ${integrationId}`, 'not_found', 'integration_id');
    if (i.type !== 'external_api')
      throw ApiError.badRequest(
        'Only external_api integrations are synced; webhooks receive their events.',
        'integration_id',
      );
    if (!(await this.repo.claim(i.id, this.owner, this.clock.now(), LEASE_MS))) {
      throw new ApiError(
        409,
        'invalid_request_error',
        'This integration is being fetched right now; try again in a moment.',
        'sync_in_progress',
      );
    }
    const changed = await this.run(i.id);
    const after = await this.repo.findIntegration(i.id);
    // deleted (with its project) while it was being fetched
    if (!after)
      throw ApiError.notFound(`No such integration in ${p.id}: ${integrationId}`, 'not_found', 'integration_id');
    return {
      integration: this.toIntegration(after),
      material: await this.projects.material(caller.teamId, p.id, after.materialId),
      changed,
    };
  }

  /** One scheduler pass: claim due integrations one at a time until none is due. */
  async tick(): Promise<void> {
    if (this.busy || this.stopped) return;
    this.busy = true;
    try {
      for (;;) {
        if (this.stopped) return;
        const id = await this.repo.claimDue(this.owner, this.clock.now(), LEASE_MS);
        if (!id) return;
        this.current = this.run(id).then(() => undefined);
        await this.current;
      }
    } catch (err) {
      this.log.warn(`integration scheduler: ${(err as Error).message}`);
    } finally {
      this.busy = false;
    }
  }

  /** Fetches a claimed integration, indexes changed content, schedules the next run and releases the lease. True when the content changed. */
  private async run(id: string): Promise<boolean> {
    const i = await this.repo.findIntegration(id);
    if (!i || i.type !== 'external_api' || !i.url) return false;
    const now = this.clock.now();
    const next = now + (i.intervalSeconds ?? DEFAULT_INTERVAL_SECONDS) * 1000;
    try {
      const headers = i.headersEnc
        ? (JSON.parse(await this.secrets.open(i.headersEnc)) as Record<string, string>)
        : undefined;
      const res = await this.fetcher.fetch(i.url, {
        maxBytes: MAX_FILE_BYTES,
        timeoutMs: FETCH_TIMEOUT_MS,
        method: i.method ?? 'GET',
        headers,
        body: i.body ?? undefined,
      });
      const { text, json } = await this.parsers
        .run<{ text: string; json: boolean }>(RESPONSE_TEXT_TASK, res.bytes, i.jsonPath)
        .catch((err: unknown) => Promise.reject(contentError(err)));
      if (text.trim() === '') throw new Error('The response holds no text.');
      const hash = createHash('sha256').update(text).digest('hex');
      const material = await this.repo.findMaterial(i.projectId, i.materialId);
      const unchanged = hash === i.contentHash && !!material?.documentId;
      if (!unchanged) await this.writeText(i, text, 'auto', json ? `${i.type}.json` : `${i.type}.txt`);
      await this.repo.endLease(i.id, this.owner, {
        contentHash: hash,
        lastRunAt: now,
        lastError: null,
        nextRunAt: next,
      });
      this.log.log(`integration ${i.id}: fetched, ${unchanged ? 'unchanged' : 'indexed'}`);
      return !unchanged;
    } catch (err) {
      const message =
        err instanceof SafeFetchError
          ? `The API could not be fetched: ${err.message}`
          : err instanceof ApiError
            ? err.message
            : (err as Error).message;
      this.log.warn(`integration ${i.id}: ${message}`);
      await this.repo.endLease(i.id, this.owner, {
        lastRunAt: now,
        lastError: message.slice(0, 2000),
        nextRunAt: next,
      });
      return false;
    }
  }
}

export const hookPath = (id: string): string => `/api/v1/hooks/${id}`;
