import { Injectable } from '@nestjs/common';
import { KnowledgeStore } from '@app/knowledge';
import { ProjectsService } from './projects.service';
import { ContextImage, ContextMaterial, ProjectContext, ProjectContextSource } from '@app/chat/context/ports';
import { parseRag } from './project-rules';
import { ProjectsRepository } from './projects.repository';

/**
 * The ProjectContextSource chat injects: the project's mode and RAG settings, its ready text
 * materials (documents of `storeId` holding chunks — what a search of the store can return), attached
 * knowledge-base ids (those still existing), and its images (bytes) — oldest first.
 */
@Injectable()
export class ProjectContextService extends ProjectContextSource {
  constructor(
    private readonly repo: ProjectsRepository,
    private readonly kb: KnowledgeStore,
    private readonly projects: ProjectsService,
  ) {
    super();
  }

  async load(teamId: string, projectId: string): Promise<ProjectContext | null> {
    const p = await this.repo.findProject(teamId, projectId);
    if (!p) return null;
    const rows = await this.repo.listMaterials(p.id);
    const docIds = rows.map((m) => m.documentId).filter((x): x is string => x !== null);
    const docs = new Map((await this.kb.internalDocuments(teamId, p.storeId, docIds)).map((d) => [d.id, d]));
    const goneKbs = await this.projects.missingKnowledgeBases(teamId, rows);
    const materials: ContextMaterial[] = [];
    const images: ContextImage[] = [];
    const knowledgeBaseIds: string[] = [];
    for (const m of rows) {
      if (m.kind === 'knowledge_base') {
        if (m.knowledgeBaseId && !goneKbs.has(m.knowledgeBaseId)) knowledgeBaseIds.push(m.knowledgeBaseId);
        continue;
      }
      const doc = m.documentId ? docs.get(m.documentId) : undefined;
      if (!doc) continue;
      if (m.mime?.startsWith('image/')) {
        if (doc.status !== 'completed') continue;
        const file = await this.kb.documentFile(teamId, doc.id);
        if (file) images.push({ materialId: m.id, title: m.title, mime: m.mime, bytes: file.bytes });
        continue;
      }
      // searchable = has chunks: completed, or being re-indexed (a refresh, a new webhook event) with its previous chunks in place
      if (doc.chunkCount === 0) continue;
      materials.push({
        id: m.id,
        kind: m.kind,
        title: doc.title && m.kind === 'file' ? doc.title : m.title,
        url: m.url ?? doc.finalUrl ?? doc.url,
        documentId: doc.id,
      });
    }
    return {
      id: p.id,
      name: p.name,
      mode: p.mode,
      rag: parseRag(p.rag),
      storeId: p.storeId,
      materials,
      knowledgeBaseIds,
      images,
    };
  }
}
