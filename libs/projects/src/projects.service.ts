import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { ApiError, Clock, ParseLimitError, ParserPool, ParserTask, ParserTaskError } from '@app/common';
import type { Caller } from '@app/auth';
import { KnowledgeStore, UploadedBytes } from '@app/knowledge';
import type { DocumentRef, InternalSource } from '@app/knowledge';
import { AttachChatDto, CreateProjectDto, MaterialDto, ProjectDto, UpdateProjectDto } from './dto/projects.dto';
import { ProjectEntity, ProjectIntegrationEntity, ProjectMaterialEntity } from './entities/project.entities';
import { ChatMessage, renderTranscript } from './messenger';
import { MATERIAL_KIND_RULES, MATERIAL_KINDS } from '@app/chat/context/ports';
import type { MaterialKind, StoreMaterialKind } from '@app/chat/context/ports';
import { DEFAULT_RAG, imageMime, mergeRag, parseRag } from './project-rules';
import { ProjectsRepository } from './projects.repository';

export const newProjectId = (): string => `prj_${randomBytes(12).toString('hex')}`;
export const newMaterialId = (): string => `mat_${randomBytes(12).toString('hex')}`;

const seconds = (ms: number): number => Math.floor(ms / 1000);
const HOLDER = 'A project';
/** Chat exports are parsed in a parser worker (messenger/export-tasks.ts). */
const CHAT_EXPORT_TASK: ParserTask = { module: join(__dirname, 'messenger', 'export-tasks'), fn: 'parseChatExport' };
/** 404 for a project id the team does not have (or a project deleted while the request ran). */
export const projectNotFound = (id: string): ApiError =>
  ApiError.notFound(`No such project: ${id}`, 'project_not_found', 'project_id');

/**
 * Projects and their materials. Text-bearing materials (and images) are documents of the project's
 * internal vector store, so knowledge's ingestion jobs, parsers, chunk store, billing and search
 * serve them; a material's status is its document's. Attached knowledge bases stay separate stores.
 */
@Injectable()
export class ProjectsService {
  constructor(
    private readonly repo: ProjectsRepository,
    private readonly kb: KnowledgeStore,
    private readonly clock: Clock,
    private readonly parsers: ParserPool,
  ) {}

  // ── projects ───────────────────────────────────────────────────────────────────────────────────

  async create(caller: Caller, dto: CreateProjectDto): Promise<ProjectDto> {
    const id = newProjectId();
    const store = await this.kb.createInternalStore(caller.teamId, `project ${id}`, caller.dataPolicy);
    const now = this.clock.now();
    await this.repo.insertProject({
      id,
      teamId: caller.teamId,
      name: dto.name,
      description: dto.description ?? null,
      mode: dto.mode ?? 'default',
      rag: JSON.stringify(mergeRag(DEFAULT_RAG, dto.rag)),
      storeId: store.id,
      createdAt: now,
      updatedAt: now,
    });
    return this.get(caller.teamId, id);
  }

  async get(teamId: string, id: string): Promise<ProjectDto> {
    const p = await this.require(teamId, id);
    return this.toProject(p, (await this.repo.materialCounts([p.id])).get(p.id)!);
  }

  async list(
    caller: Caller,
    q: { after?: string; limit?: number; order?: 'asc' | 'desc' },
  ): Promise<{ data: ProjectDto[]; has_more: boolean }> {
    const limit = q.limit ?? 20;
    const rows = await this.repo.listProjects(caller.teamId, { after: q.after, limit, order: q.order ?? 'desc' });
    const page = rows.slice(0, limit);
    const counts = await this.repo.materialCounts(page.map((p) => p.id));
    return { data: page.map((p) => this.toProject(p, counts.get(p.id)!)), has_more: rows.length > limit };
  }

  async update(caller: Caller, id: string, dto: UpdateProjectDto): Promise<ProjectDto> {
    const p = await this.require(caller.teamId, id);
    const patch: Partial<ProjectEntity> = { updatedAt: this.clock.now() };
    if (dto.name !== undefined) patch.name = dto.name;
    if (dto.description !== undefined) patch.description = dto.description;
    if (dto.mode !== undefined) patch.mode = dto.mode;
    if (dto.rag !== undefined) patch.rag = JSON.stringify(mergeRag(parseRag(p.rag), dto.rag));
    await this.repo.updateProject(caller.teamId, id, patch);
    return this.get(caller.teamId, id);
  }

  /** The project, its materials and its store (documents, chunks, jobs); attached knowledge bases stay. */
  async delete(caller: Caller, id: string): Promise<void> {
    const p = await this.require(caller.teamId, id);
    const owned = (await this.repo.listMaterials(p.id))
      .filter((m) => m.ownsFile && m.documentId)
      .map((m) => m.documentId!);
    await this.repo.deleteProject(caller.teamId, id);
    await this.kb.deleteInternalStore(caller.teamId, p.storeId, owned);
  }

  async require(teamId: string, id: string): Promise<ProjectEntity> {
    const p = await this.repo.findProject(teamId, id);
    if (!p) throw projectNotFound(id);
    return p;
  }

  private toProject(p: ProjectEntity, counts: Partial<Record<MaterialKind, number>>): ProjectDto {
    const byKind = Object.fromEntries(MATERIAL_KINDS.map((k) => [k, counts[k] ?? 0])) as Record<MaterialKind, number>;
    return {
      id: p.id,
      object: 'project',
      name: p.name,
      description: p.description,
      mode: p.mode,
      rag: parseRag(p.rag),
      materials: { total: MATERIAL_KINDS.reduce((s, k) => s + byKind[k], 0), ...byKind },
      created_at: seconds(p.createdAt),
      updated_at: seconds(p.updatedAt),
    };
  }

  // ── materials ──────────────────────────────────────────────────────────────────────────────────

  async listMaterials(caller: Caller, projectId: string): Promise<MaterialDto[]> {
    const p = await this.require(caller.teamId, projectId);
    const rows = await this.repo.listMaterials(p.id);
    const integrations = new Map((await this.repo.integrationsOf(p.id)).map((i) => [i.id, i]));
    const docs = await this.documentsOf(p, rows);
    const gone = await this.missingKnowledgeBases(p.teamId, rows);
    return rows.map((m) =>
      this.toMaterial(
        m,
        docs.get(m.documentId ?? ''),
        m.integrationId ? integrations.get(m.integrationId) : undefined,
        gone,
      ),
    );
  }

  async material(teamId: string, projectId: string, materialId: string): Promise<MaterialDto> {
    const p = await this.require(teamId, projectId);
    const m = await this.requireMaterial(p, materialId);
    const docs = await this.documentsOf(p, [m]);
    const integration = m.integrationId ? ((await this.repo.findIntegration(m.integrationId)) ?? undefined) : undefined;
    return this.toMaterial(m, docs.get(m.documentId ?? ''), integration, await this.missingKnowledgeBases(teamId, [m]));
  }

  async deleteMaterial(caller: Caller, projectId: string, materialId: string): Promise<void> {
    const p = await this.require(caller.teamId, projectId);
    const m = await this.requireMaterial(p, materialId);
    await this.repo.deleteMaterial(p.id, m.id);
    if (m.documentId)
      await this.kb.deleteInternalDocument(caller.teamId, p.storeId, m.documentId, { deleteFile: m.ownsFile === 1 });
  }

  /** Fetch a link again (unchanged content is not re-embedded) or re-run the ingestion of any text material. */
  async refreshMaterial(caller: Caller, projectId: string, materialId: string): Promise<MaterialDto> {
    const p = await this.require(caller.teamId, projectId);
    const m = await this.requireMaterial(p, materialId);
    if (!m.documentId)
      throw ApiError.badRequest(
        `${m.kind === 'knowledge_base' ? 'A knowledge base' : 'This material'} has no document to refresh${m.kind === 'external_api' ? ' (use the integration sync)' : ''}.`,
        'material_id',
      );
    await this.kb.refreshInternalDocument(caller.teamId, p.storeId, m.documentId);
    return this.material(caller.teamId, p.id, m.id);
  }

  async requireMaterial(p: ProjectEntity, materialId: string): Promise<ProjectMaterialEntity> {
    const m = await this.repo.findMaterial(p.id, materialId);
    if (!m) throw ApiError.notFound(`No such material in ${p.id}: ${materialId}`, 'material_not_found', 'material_id');
    return m;
  }

  /**
   * A material of `kind` backed by a new document of the project's store: knowledge ingests the
   * source (a stored file, an upload, a link or a text) like any knowledge-base document, and the
   * material's status is its document's. A new material kind is added through here.
   */
  async addStoreMaterial(
    caller: Caller,
    projectId: string,
    kind: StoreMaterialKind,
    source: InternalSource,
    extra: { mime?: string | null; url?: string | null; ownsFile?: boolean } = {},
  ): Promise<MaterialDto> {
    const p = await this.require(caller.teamId, projectId);
    const doc = await this.kb.addInternalDocument(caller.teamId, p.storeId, source, HOLDER);
    return this.recordDocument(p, kind, doc, extra);
  }

  /** Multipart upload: a document (ingested) or an image (stored for vision models). */
  async addUpload(caller: Caller, projectId: string, upload: UploadedBytes | undefined): Promise<MaterialDto> {
    const mime = upload ? imageMime(upload.buffer) : null;
    return this.addStoreMaterial(caller, projectId, 'file', { type: 'upload', upload }, { mime, ownsFile: true });
  }

  /** An existing /v1/files id of the team. */
  async addFileId(caller: Caller, projectId: string, fileId: string): Promise<MaterialDto> {
    const p = await this.require(caller.teamId, projectId);
    const existing = await this.repo.findMaterialBy(p.id, { documentId: fileId });
    if (existing) return this.material(caller.teamId, p.id, existing.id);
    const doc = await this.kb.addInternalDocument(caller.teamId, p.storeId, { type: 'file', fileId }, HOLDER);
    const file = await this.kb.documentFile(caller.teamId, doc.id);
    return this.recordDocument(p, 'file', doc, { mime: file ? imageMime(file.bytes) : null });
  }

  async addLink(caller: Caller, projectId: string, url: string): Promise<MaterialDto> {
    const p = await this.require(caller.teamId, projectId);
    const doc = await this.kb.addInternalDocument(caller.teamId, p.storeId, { type: 'link', url }, HOLDER);
    return this.recordDocument(p, 'link', doc, { url: doc.url, ownsFile: true });
  }

  async attachKnowledgeBase(caller: Caller, projectId: string, kbId: string): Promise<MaterialDto> {
    const p = await this.require(caller.teamId, projectId);
    const store = await this.kb.knowledgeBase(caller.teamId, kbId);
    const existing = await this.repo.findMaterialBy(p.id, { knowledgeBaseId: store.id });
    if (existing) return this.material(caller.teamId, p.id, existing.id);
    const m = this.newMaterial(p, 'knowledge_base', store.name ?? store.id, { knowledgeBaseId: store.id });
    if (!(await this.repo.insertMaterial(m))) throw projectNotFound(p.id);
    return this.material(caller.teamId, p.id, m.id);
  }

  async detachKnowledgeBase(caller: Caller, projectId: string, kbId: string): Promise<void> {
    const p = await this.require(caller.teamId, projectId);
    const m = await this.repo.findMaterialBy(p.id, { knowledgeBaseId: kbId });
    if (!m)
      throw ApiError.notFound(`Knowledge base ${kbId} is not attached to ${p.id}.`, 'not_found', 'knowledge_base_id');
    await this.repo.deleteMaterial(p.id, m.id);
  }

  async attachChat(caller: Caller, projectId: string, dto: AttachChatDto): Promise<MaterialDto> {
    const messages: ChatMessage[] = dto.messages.map((m) => ({
      ts: m.created_at ?? null,
      author: m.role,
      text: m.content,
    }));
    return this.addTranscript(caller, projectId, 'chat', dto.title, messages);
  }

  async addMessengerChat(
    caller: Caller,
    projectId: string,
    format: 'telegram' | 'whatsapp' | 'slack',
    upload: UploadedBytes | undefined,
    title: string | undefined,
  ): Promise<MaterialDto> {
    await this.require(caller.teamId, projectId);
    if (!upload || !Buffer.isBuffer(upload.buffer) || upload.buffer.length === 0)
      throw ApiError.badRequest('A multipart field "file" with the export is required.', 'file');
    let messages: ChatMessage[];
    try {
      messages = await this.parsers.run<ChatMessage[]>(CHAT_EXPORT_TASK, format, upload.buffer);
    } catch (err) {
      if (err instanceof ParseLimitError) throw ApiError.badRequest(err.message, 'file', 'parse_limit_exceeded');
      if (err instanceof ParserTaskError && err.errorName === 'ChatExportError')
        throw ApiError.badRequest(err.message, 'file', 'invalid_export');
      throw err;
    }
    if (messages.length === 0)
      throw ApiError.badRequest(`The ${format} export holds no text messages.`, 'file', 'empty_document');
    return this.addTranscript(
      caller,
      projectId,
      'messenger_chat',
      title || upload.originalname || `${format} chat`,
      messages,
    );
  }

  private async addTranscript(
    caller: Caller,
    projectId: string,
    kind: 'chat' | 'messenger_chat',
    title: string,
    messages: ChatMessage[],
  ): Promise<MaterialDto> {
    await this.require(caller.teamId, projectId);
    const text = renderTranscript(messages);
    if (text.trim() === '') throw ApiError.badRequest('The chat holds no text messages.', 'messages', 'empty_document');
    const source = { type: 'text', title, filename: `${kind}.md`, text, chunking: 'messages' } as const;
    return this.addStoreMaterial(caller, projectId, kind, source, { ownsFile: true });
  }

  private async recordDocument(
    p: ProjectEntity,
    kind: MaterialKind,
    doc: DocumentRef,
    extra: { mime?: string | null; url?: string | null; ownsFile?: boolean },
  ): Promise<MaterialDto> {
    const existing = await this.repo.findMaterialBy(p.id, { documentId: doc.id });
    if (existing) return this.material(p.teamId, p.id, existing.id);
    const m = this.newMaterial(p, kind, doc.title ?? doc.filename, {
      documentId: doc.id,
      mime: extra.mime ?? null,
      url: extra.url ?? null,
      ownsFile: extra.ownsFile ? 1 : 0,
    });
    if (!(await this.repo.insertMaterial(m))) throw projectNotFound(p.id);
    return this.material(p.teamId, p.id, m.id);
  }

  newMaterial(
    p: ProjectEntity,
    kind: MaterialKind,
    title: string,
    refs: Partial<
      Pick<ProjectMaterialEntity, 'documentId' | 'knowledgeBaseId' | 'integrationId' | 'url' | 'mime' | 'ownsFile'>
    >,
  ): Omit<ProjectMaterialEntity, 'seq'> {
    return {
      id: newMaterialId(),
      projectId: p.id,
      teamId: p.teamId,
      kind,
      title: title.slice(0, 512),
      documentId: refs.documentId ?? null,
      knowledgeBaseId: refs.knowledgeBaseId ?? null,
      integrationId: refs.integrationId ?? null,
      url: refs.url ?? null,
      mime: refs.mime ?? null,
      ownsFile: refs.ownsFile ?? 0,
      createdAt: this.clock.now(),
    };
  }

  async documentsOf(p: ProjectEntity, rows: ProjectMaterialEntity[]): Promise<Map<string, DocumentRef>> {
    const ids = rows.map((m) => m.documentId).filter((x): x is string => x !== null);
    const docs = await this.kb.internalDocuments(p.teamId, p.storeId, ids);
    return new Map(docs.map((d) => [d.id, d]));
  }

  /** Attached knowledge bases deleted since (their materials read failed; chat does not get them). */
  async missingKnowledgeBases(teamId: string, rows: ProjectMaterialEntity[]): Promise<Set<string>> {
    const ids = rows.map((m) => m.knowledgeBaseId).filter((id): id is string => id !== null);
    return this.kb.missingKnowledgeBases(teamId, ids);
  }

  toMaterial(
    m: ProjectMaterialEntity,
    doc: DocumentRef | undefined,
    integration: ProjectIntegrationEntity | undefined,
    goneKbs: Set<string> = new Set(),
  ): MaterialDto {
    let status: MaterialDto['status'] = 'completed';
    let lastError: MaterialDto['last_error'] = null;
    if (m.knowledgeBaseId && goneKbs.has(m.knowledgeBaseId)) {
      status = 'failed';
      lastError = {
        code: 'knowledge_base_deleted',
        message: `The knowledge base ${m.knowledgeBaseId} was deleted; detach it.`,
      };
    } else if (doc) {
      status = doc.status === 'queued' ? 'in_progress' : doc.status;
      if (doc.lastErrorCode) lastError = { code: doc.lastErrorCode, message: doc.lastErrorMessage ?? '' };
    } else if (m.documentId) {
      status = 'failed';
      lastError = { code: 'document_missing', message: 'The document of this material was deleted.' };
    }
    if (integration?.lastError) {
      lastError = { code: 'integration_error', message: integration.lastError };
      if (!doc) status = 'failed';
    } else if (integration?.type === 'external_api' && !doc) {
      status = 'in_progress'; // the first fetch is pending
    }
    return {
      id: m.id,
      object: 'project.material',
      kind: m.kind,
      title: doc && MATERIAL_KIND_RULES[m.kind].documentTitle ? (doc.title ?? m.title) : m.title,
      status,
      last_error: lastError,
      tokens: doc?.tokens ?? 0,
      chunks: doc?.chunkCount ?? 0,
      url: m.url ?? doc?.url ?? null,
      mime: m.mime,
      document_id: m.documentId,
      knowledge_base_id: m.knowledgeBaseId,
      integration_id: m.integrationId,
      created_at: seconds(m.createdAt),
    };
  }
}
