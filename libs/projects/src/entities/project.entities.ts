import { Column, Entity, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';
import { bigintNumber } from '@app/database';
import type { MaterialKind, ProjectMode } from '@app/chat/context/ports';

@Entity('projects')
export class ProjectEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' }) seq: number | string;
  @Column({ type: 'varchar', length: 40, unique: true }) id: string;
  @Column({ name: 'team_id', type: 'varchar', length: 36 }) teamId: string;
  @Column({ type: 'varchar', length: 256 }) name: string;
  @Column({ type: 'text', nullable: true }) description: string | null;
  @Column({ type: 'varchar', length: 32 }) mode: ProjectMode;
  /** JSON ProjectRagSettings */
  @Column({ type: 'text' }) rag: string;
  /** the project-owned internal vector store holding its text materials */
  @Column({ name: 'store_id', type: 'varchar', length: 40 }) storeId: string;
  @Column({ name: 'created_at', type: 'bigint', transformer: bigintNumber }) createdAt: number;
  @Column({ name: 'updated_at', type: 'bigint', transformer: bigintNumber }) updatedAt: number;
}

/**
 * One material of a project. Text-bearing materials and images point at a document of the
 * project's store (`documentId`); an attached knowledge base at `knowledgeBaseId`; integrations at
 * `integrationId` (their document appears with the first data).
 */
@Entity('project_materials')
export class ProjectMaterialEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' }) seq: number | string;
  @Column({ type: 'varchar', length: 40, unique: true }) id: string;
  @Column({ name: 'project_id', type: 'varchar', length: 40 }) projectId: string;
  @Column({ name: 'team_id', type: 'varchar', length: 36 }) teamId: string;
  @Column({ type: 'varchar', length: 16 }) kind: MaterialKind;
  @Column({ type: 'varchar', length: 512 }) title: string;
  @Column({ name: 'document_id', type: 'varchar', length: 40, nullable: true }) documentId: string | null;
  @Column({ name: 'knowledge_base_id', type: 'varchar', length: 40, nullable: true }) knowledgeBaseId: string | null;
  @Column({ name: 'integration_id', type: 'varchar', length: 40, nullable: true }) integrationId: string | null;
  @Column({ type: 'text', nullable: true }) url: string | null;
  /** image materials: the image type (they are stored, not indexed) */
  @Column({ type: 'varchar', length: 100, nullable: true }) mime: string | null;
  /** 1 when the project created the document's file (uploads, chats, integrations): deleted with the material */
  @Column({ name: 'owns_file', type: 'integer', default: 0 }) ownsFile: number;
  @Column({ name: 'created_at', type: 'bigint', transformer: bigintNumber }) createdAt: number;
}

export type IntegrationType = 'webhook' | 'external_api';

@Entity('project_integrations')
export class ProjectIntegrationEntity {
  @PrimaryColumn({ type: 'varchar', length: 40 }) id: string;
  @Column({ name: 'project_id', type: 'varchar', length: 40 }) projectId: string;
  @Column({ name: 'team_id', type: 'varchar', length: 36 }) teamId: string;
  @Column({ name: 'material_id', type: 'varchar', length: 40 }) materialId: string;
  @Column({ type: 'varchar', length: 16 }) type: IntegrationType;
  @Column({ type: 'varchar', length: 256 }) name: string;
  /** webhook: the signing secret, sealed (AES-256-GCM) */
  @Column({ name: 'secret_enc', type: 'text', nullable: true }) secretEnc: string | null;
  @Column({ type: 'text', nullable: true }) url: string | null;
  @Column({ type: 'varchar', length: 8, nullable: true }) method: 'GET' | 'POST' | null;
  /** external API: JSON object of header values, sealed as a whole */
  @Column({ name: 'headers_enc', type: 'text', nullable: true }) headersEnc: string | null;
  /** JSON list of the header names (shown; the values never are) */
  @Column({ name: 'header_names', type: 'text', nullable: true }) headerNames: string | null;
  @Column({ type: 'text', nullable: true }) body: string | null;
  @Column({ name: 'json_path', type: 'varchar', length: 512, nullable: true }) jsonPath: string | null;
  @Column({ name: 'interval_seconds', type: 'integer', nullable: true }) intervalSeconds: number | null;
  @Column({ name: 'next_run_at', type: 'bigint', nullable: true, transformer: bigintNumber }) nextRunAt: number | null;
  @Column({ name: 'lease_owner', type: 'varchar', length: 64, nullable: true }) leaseOwner: string | null;
  @Column({ name: 'lease_until', type: 'bigint', nullable: true, transformer: bigintNumber }) leaseUntil: number | null;
  /** SHA-256 of the last indexed content (an unchanged response is not re-embedded) */
  @Column({ name: 'content_hash', type: 'varchar', length: 64, nullable: true }) contentHash: string | null;
  @Column({ name: 'last_run_at', type: 'bigint', nullable: true, transformer: bigintNumber }) lastRunAt: number | null;
  @Column({ name: 'last_error', type: 'text', nullable: true }) lastError: string | null;
  @Column({ name: 'created_at', type: 'bigint', transformer: bigintNumber }) createdAt: number;
}

@Entity('project_webhook_events')
export class WebhookEventEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' }) seq: number | string;
  @Column({ name: 'integration_id', type: 'varchar', length: 40 }) integrationId: string;
  @Column({ name: 'webhook_id', type: 'varchar', length: 256 }) webhookId: string;
  @Column({ name: 'received_at', type: 'bigint', transformer: bigintNumber }) receivedAt: number;
  @Column({ type: 'text' }) payload: string;
}
