import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  Allow,
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsNumber,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { MATERIAL_KIND_RULES, MATERIAL_KINDS, PROJECT_MODES } from '@app/chat/context/ports';
import type { MaterialKind, ProjectMode } from '@app/chat/context/ports';

export class RagSettingsInputDto {
  @ApiPropertyOptional({ example: 15, default: 15, description: 'Fragments kept after rerank (15–30)' })
  @IsOptional()
  @IsInt()
  @Min(15)
  @Max(30)
  top_k?: number;
  @ApiPropertyOptional({ example: true, default: true, description: 'Rerank the candidates' })
  @IsOptional()
  @IsBoolean()
  rerank?: boolean;
  @ApiPropertyOptional({ example: 0.3, default: 0.3, description: 'Minimum similarity for project materials (0–1)' })
  @IsOptional()
  @IsNumber()
  @Min(0)
  @Max(1)
  file_threshold?: number;
  @ApiPropertyOptional({
    example: 0.1,
    default: 0.1,
    description: 'Minimum similarity for attached knowledge bases (0–1)',
  })
  @IsOptional()
  @IsNumber()
  @Min(0)
  @Max(1)
  kb_threshold?: number;
}

export class CreateProjectDto {
  @ApiProperty({ example: 'Support assistant' }) @IsString() @IsNotEmpty() @MaxLength(256) name: string;
  @ApiPropertyOptional({ example: 'Answers customer questions from our handbook and chats' })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  description?: string;
  @ApiPropertyOptional({ enum: PROJECT_MODES, default: 'default', example: 'default' })
  @IsOptional()
  @IsIn(PROJECT_MODES as ProjectMode[])
  mode?: ProjectMode;
  @ApiPropertyOptional({ type: RagSettingsInputDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => RagSettingsInputDto)
  rag?: RagSettingsInputDto;
}

export class UpdateProjectDto {
  @ApiPropertyOptional({ example: 'Support assistant v2' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(256)
  name?: string;
  @ApiPropertyOptional({ example: 'Handbook, chats and the status API' })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  description?: string;
  @ApiPropertyOptional({ enum: PROJECT_MODES, example: 'big_docs_mode' })
  @IsOptional()
  @IsIn(PROJECT_MODES as ProjectMode[])
  mode?: ProjectMode;
  @ApiPropertyOptional({
    type: RagSettingsInputDto,
    description: 'Fields given replace those of the project; the others stay',
  })
  @IsOptional()
  @ValidateNested()
  @Type(() => RagSettingsInputDto)
  rag?: RagSettingsInputDto;
}

export class RagSettingsDto {
  @ApiProperty({ example: 15 }) top_k: number;
  @ApiProperty({ example: true }) rerank: boolean;
  @ApiProperty({ example: 0.3 }) file_threshold: number;
  @ApiProperty({ example: 0.1 }) kb_threshold: number;
}

/** `total`, then one count per material kind (MATERIAL_KIND_RULES), declared by the loop below. */
export class MaterialCountsDto {
  @ApiProperty({ example: 3 }) total: number;
}
for (const kind of MATERIAL_KINDS)
  ApiProperty({ type: Number, example: MATERIAL_KIND_RULES[kind].countExample })(MaterialCountsDto.prototype, kind);

export class ProjectDto {
  @ApiProperty({ example: 'prj_1a2b3c4d5e6f7a8b9c0d1e2f' }) id: string;
  @ApiProperty({ example: 'project' }) object: 'project';
  @ApiProperty({ example: 'Support assistant' }) name: string;
  @ApiProperty({ nullable: true, type: String, example: null }) description: string | null;
  @ApiProperty({ enum: PROJECT_MODES, example: 'default' }) mode: ProjectMode;
  @ApiProperty({ type: RagSettingsDto }) rag: RagSettingsDto;
  @ApiProperty({ type: MaterialCountsDto }) materials: MaterialCountsDto & Record<MaterialKind, number>;
  @ApiProperty({ example: 1767225600, description: 'Unix seconds' }) created_at: number;
  @ApiProperty({ example: 1767225600, description: 'Unix seconds' }) updated_at: number;
}

export class ProjectListDto {
  @ApiProperty({ type: [ProjectDto] }) data: ProjectDto[];
  @ApiProperty({ example: false }) has_more: boolean;
}

export class ProjectDeletedDto {
  @ApiProperty({ example: 'prj_1a2b3c4d5e6f7a8b9c0d1e2f' }) id: string;
  @ApiProperty({ example: true }) deleted: true;
}

// ── materials ────────────────────────────────────────────────────────────────────────────────────

export class AddFileDto {
  @ApiProperty({ example: 'file-6f1c2a9b0d3e4f5a6b7c8d9e', description: 'An uploaded /v1/files id of the team' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(64)
  file_id: string;
}

export class ProjectFileUploadDto {
  @ApiProperty({
    type: 'string',
    format: 'binary',
    description: 'PDF, DOCX, HTML, Markdown/text, CSV, JSON, or an image (PNG, JPEG, WebP, GIF); ≤ 10 MB',
  })
  file: unknown;
}

export class AddLinkDto {
  @ApiProperty({ example: 'https://example.com/help/passwords' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(4096)
  url: string;
}

export class AttachKnowledgeBaseDto {
  @ApiProperty({ example: 'vs_1a2b3c4d5e6f7a8b9c0d1e2f', description: 'A knowledge base (vector store) of the team' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(64)
  knowledge_base_id: string;
}

export class ChatMessageInputDto {
  @ApiProperty({ example: 'user', description: 'Author role (user, assistant, system, or a name)' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(256)
  role: string;
  @ApiProperty({ example: 'How do I reset my password?' }) @IsString() @MaxLength(1_000_000) content: string;
  @ApiPropertyOptional({ example: '2026-01-15T10:00:00Z', description: 'ISO-8601 time' })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  created_at?: string;
}

export class AttachChatDto {
  @ApiProperty({ example: 'Support chat with ACME' }) @IsString() @IsNotEmpty() @MaxLength(512) title: string;
  @ApiProperty({
    type: [ChatMessageInputDto],
    example: [
      { role: 'user', content: 'How do I reset my password?', created_at: '2026-01-15T10:00:00Z' },
      {
        role: 'assistant',
        content: 'Open Settings → Security and choose "Reset".',
        created_at: '2026-01-15T10:00:05Z',
      },
    ],
  })
  @IsArray()
  @ArrayMaxSize(100_000)
  @ValidateNested({ each: true })
  @Type(() => ChatMessageInputDto)
  messages: ChatMessageInputDto[];
}

export class MessengerChatUploadDto {
  @ApiProperty({
    type: 'string',
    format: 'binary',
    description: 'Telegram Desktop result.json, WhatsApp .txt export, or Slack export .zip (≤ 10 MB)',
  })
  file: unknown;
  @ApiProperty({ enum: ['telegram', 'whatsapp', 'slack'], example: 'telegram' })
  @IsIn(['telegram', 'whatsapp', 'slack'])
  format: 'telegram' | 'whatsapp' | 'slack';
  @ApiPropertyOptional({ example: 'Team chat export' }) @IsOptional() @IsString() @MaxLength(512) title?: string;
}

export class MaterialErrorDto {
  @ApiProperty({ example: 'link_forbidden_address' }) code: string;
  @ApiProperty({ example: 'The link could not be fetched: Address 127.0.0.1 is not allowed (loopback)' })
  message: string;
}

export class MaterialDto {
  @ApiProperty({ example: 'mat_1a2b3c4d5e6f7a8b9c0d1e2f' }) id: string;
  @ApiProperty({ example: 'project.material' }) object: 'project.material';
  @ApiProperty({
    enum: MATERIAL_KINDS,
    example: 'file',
  })
  kind: MaterialKind;
  @ApiProperty({ example: 'handbook.pdf' }) title: string;
  @ApiProperty({
    enum: ['in_progress', 'completed', 'failed', 'cancelled'],
    example: 'completed',
    description: 'As knowledge-base documents: queued work reads in_progress',
  })
  status: 'in_progress' | 'completed' | 'failed' | 'cancelled';
  @ApiProperty({ type: MaterialErrorDto, nullable: true, example: null }) last_error: MaterialErrorDto | null;
  @ApiProperty({ example: 1234, description: 'Tokens indexed (embedded text)' }) tokens: number;
  @ApiProperty({ example: 3 }) chunks: number;
  @ApiProperty({ nullable: true, type: String, example: null, description: 'links and external APIs: the URL' }) url:
    string | null;
  @ApiProperty({
    nullable: true,
    type: String,
    example: null,
    description: 'images: their type (stored for vision models, not indexed)',
  })
  mime: string | null;
  @ApiProperty({
    nullable: true,
    type: String,
    example: 'file-6f1c2a9b0d3e4f5a6b7c8d9e',
    description: 'The document of the project store holding the text',
  })
  document_id: string | null;
  @ApiProperty({ nullable: true, type: String, example: null }) knowledge_base_id: string | null;
  @ApiProperty({ nullable: true, type: String, example: null }) integration_id: string | null;
  @ApiProperty({ example: 1767225600, description: 'Unix seconds' }) created_at: number;
}

export class MaterialListDto {
  @ApiProperty({ type: [MaterialDto] }) data: MaterialDto[];
}

export class MaterialDeletedDto {
  @ApiProperty({ example: 'mat_1a2b3c4d5e6f7a8b9c0d1e2f' }) id: string;
  @ApiProperty({ example: true }) deleted: true;
}

// ── integrations ─────────────────────────────────────────────────────────────────────────────────

export class CreateIntegrationDto {
  @ApiProperty({ enum: ['webhook', 'external_api'], example: 'webhook' }) @IsIn(['webhook', 'external_api']) type:
    'webhook' | 'external_api';
  @ApiProperty({ example: 'CRM events' }) @IsString() @IsNotEmpty() @MaxLength(256) name: string;
  @ApiPropertyOptional({
    example: 'https://status.example.com/api/summary.json',
    description: 'external_api: the URL fetched (through the SSRF guard)',
  })
  @IsOptional()
  @IsString()
  @MaxLength(4096)
  url?: string;
  @ApiPropertyOptional({ enum: ['GET', 'POST'], default: 'GET', description: 'external_api' })
  @IsOptional()
  @IsIn(['GET', 'POST'])
  method?: 'GET' | 'POST';
  @ApiPropertyOptional({
    example: { authorization: 'Bearer <token>' },
    description: 'external_api: request headers; values are encrypted at rest and never returned',
  })
  @Allow()
  headers?: unknown;
  @ApiPropertyOptional({
    oneOf: [{ type: 'string' }, { type: 'object', additionalProperties: true }, { type: 'array', items: {} }],
    description: 'external_api, POST: the request body (a string, or JSON sent as application/json)',
    example: '{"query":"status"}',
  })
  @Allow()
  body?: unknown;
  @ApiPropertyOptional({
    example: 'data.items',
    description:
      'external_api: the part of a JSON response to index, as a dotted path (`a.b[0].c`, optional leading `$.`)',
  })
  @IsOptional()
  @IsString()
  @MaxLength(512)
  json_path?: string;
  @ApiPropertyOptional({ example: 3600, default: 3600, description: 'external_api: seconds between fetches (≥ 300)' })
  @IsOptional()
  @IsInt()
  @Min(300)
  @Max(30 * 86_400)
  interval_seconds?: number;
}

export class IntegrationDto {
  @ApiProperty({ example: 'int_1a2b3c4d5e6f7a8b9c0d1e2f' }) id: string;
  @ApiProperty({ example: 'project.integration' }) object: 'project.integration';
  @ApiProperty({ enum: ['webhook', 'external_api'], example: 'webhook' }) type: 'webhook' | 'external_api';
  @ApiProperty({ example: 'CRM events' }) name: string;
  @ApiProperty({ example: 'mat_1a2b3c4d5e6f7a8b9c0d1e2f' }) material_id: string;
  @ApiProperty({
    example: '/api/v1/hooks/int_1a2b3c4d5e6f7a8b9c0d1e2f',
    description: 'webhook: where to POST events; external_api: the URL fetched',
  })
  url: string;
  @ApiPropertyOptional({
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    description: 'webhook: the signing secret, shown ONLY in the create response',
  })
  secret?: string;
  @ApiPropertyOptional({ enum: ['GET', 'POST'] }) method?: 'GET' | 'POST';
  @ApiPropertyOptional({
    example: ['authorization'],
    description: 'external_api: header names (values are never shown)',
  })
  header_names?: string[];
  @ApiPropertyOptional({ nullable: true, type: String, example: null }) json_path?: string | null;
  @ApiPropertyOptional({ example: 3600 }) interval_seconds?: number;
  @ApiPropertyOptional({
    nullable: true,
    type: Number,
    example: 1767229200,
    description: 'external_api: next scheduled fetch (Unix seconds)',
  })
  next_run_at?: number | null;
  @ApiPropertyOptional({
    nullable: true,
    type: Number,
    example: null,
    description: 'external_api: last fetch (Unix seconds)',
  })
  last_run_at?: number | null;
  @ApiPropertyOptional({ nullable: true, type: String, example: null }) last_error?: string | null;
  @ApiProperty({ example: 1767225600 }) created_at: number;
}

export class SyncResultDto {
  @ApiProperty({ type: IntegrationDto }) integration: IntegrationDto;
  @ApiProperty({ type: MaterialDto }) material: MaterialDto;
  @ApiProperty({
    example: true,
    description: 'false when the response had the same content hash as the last one (nothing re-embedded)',
  })
  changed: boolean;
}

export class WebhookAckDto {
  @ApiProperty({ example: true }) received: boolean;
  @ApiProperty({ example: false, description: 'true when this webhook-id was received before (not stored again)' })
  duplicate: boolean;
}
