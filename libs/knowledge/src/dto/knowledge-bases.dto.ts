import { CostBreakdownDto, PageQueryDto } from '@app/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  Allow,
  IsBoolean,
  IsIn,
  IsNumber,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
} from 'class-validator';

export class CreateKnowledgeBaseDto {
  @ApiProperty({ example: 'Support handbook' }) @IsString() @IsNotEmpty() @MaxLength(256) name: string;
  @ApiPropertyOptional({ example: 'Policies and how-tos' })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  description?: string;
  @ApiPropertyOptional({ example: { team: 'support' } }) @Allow() metadata?: unknown;
  @ApiPropertyOptional({
    example: 'local-embedding-small',
    description: 'Default: text-embedding-3-small with an OpenAI key, else local-embedding-small (1536 dims)',
  })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  embedding_model?: string;
}

export class UpdateKnowledgeBaseDto {
  @ApiPropertyOptional({ example: 'Support handbook v2' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(256)
  name?: string;
  @ApiPropertyOptional({ example: 'Policies, how-tos and FAQ' })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  description?: string;
  @ApiPropertyOptional({ example: { team: 'support' } }) @Allow() metadata?: unknown;
}

const REPLACE_DESCRIPTION =
  'A document with the same name and other content in the knowledge base is replaced by this one (deleted when the new chunks are searchable); false keeps both. The same content uploaded again answers the existing document whatever this says.';

export class TextDocumentDto {
  @ApiProperty({ example: 'password-reset.md' }) @IsString() @IsNotEmpty() @MaxLength(255) name: string;
  @ApiProperty({ example: 'To reset your password open Settings → Security and choose "Reset".' })
  @IsString()
  @MaxLength(10 * 1024 * 1024)
  text: string;
  @ApiPropertyOptional({ example: { lang: 'en' } }) @Allow() metadata?: unknown;
  @ApiPropertyOptional({ description: REPLACE_DESCRIPTION, example: true, default: true })
  @IsOptional()
  @IsBoolean()
  replace?: boolean;
}

export class UploadDocumentDto {
  @ApiProperty({
    type: 'string',
    format: 'binary',
    description: 'PDF, DOCX, HTML, Markdown/text, CSV or JSON (≤ 10 MB; type by content)',
  })
  file: unknown;
  @ApiPropertyOptional({ description: 'JSON object (string)', example: '{"lang":"en"}' })
  @IsOptional()
  @IsString()
  @MaxLength(8192)
  metadata?: string;
  @ApiPropertyOptional({ description: REPLACE_DESCRIPTION, enum: ['true', 'false'], example: 'true', default: 'true' })
  @IsOptional()
  @IsIn(['true', 'false'])
  replace?: 'true' | 'false';
}

export class LinkDto {
  @ApiProperty({ example: 'https://example.com/help/passwords' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(4096)
  url: string;
  @ApiPropertyOptional({ example: { lang: 'en' } }) @Allow() metadata?: unknown;
}

export class KnowledgeBaseSearchDto {
  @ApiProperty({ example: 'How do I reset my password?' }) @IsString() @IsNotEmpty() @MaxLength(32_000) query: string;
  @ApiPropertyOptional({ example: 10, default: 10 }) @IsOptional() @IsInt() @Min(1) @Max(100) top_k?: number;
  @ApiPropertyOptional({ example: 0.1, default: 0.1 })
  @IsOptional()
  @IsNumber()
  @Min(0)
  @Max(1)
  similarity_threshold?: number;
  @ApiPropertyOptional({
    description: 'Same grammar as OpenAI vector store search filters, over document metadata',
    example: { type: 'eq', key: 'lang', value: 'en' },
  })
  @Allow()
  filters?: unknown;
}

export class KbFileCountsDto {
  @ApiProperty({ example: 0 }) in_progress: number;
  @ApiProperty({ example: 3 }) completed: number;
  @ApiProperty({ example: 0 }) failed: number;
  @ApiProperty({ example: 0 }) cancelled: number;
  @ApiProperty({ example: 3 }) total: number;
}

export class KnowledgeBaseDto {
  @ApiProperty({ example: 'vs_1a2b3c4d5e6f7a8b9c0d1e2f' }) id: string;
  @ApiProperty({ nullable: true, type: String, example: 'Support handbook' }) name: string | null;
  @ApiProperty({ nullable: true, type: String, example: null }) description: string | null;
  @ApiProperty({ nullable: true, type: Object, example: { team: 'support' } }) metadata: Record<string, string> | null;
  @ApiProperty({ enum: ['in_progress', 'completed'], example: 'completed' }) status: 'in_progress' | 'completed';
  @ApiProperty({ example: 'local-embedding-small' }) embedding_model: string;
  @ApiProperty({ example: 1536 }) dimensions: number;
  @ApiProperty({ example: 3 }) document_count: number;
  @ApiProperty({ example: 1 }) link_count: number;
  @ApiProperty({ example: 42 }) chunk_count: number;
  @ApiProperty({ example: 123456 }) usage_bytes: number;
  @ApiProperty({ type: KbFileCountsDto }) file_counts: KbFileCountsDto;
  @ApiProperty({ example: '2026-01-01T00:00:00.000Z' }) created_at: string;
}

export class KnowledgeBaseListDto {
  @ApiProperty({ type: [KnowledgeBaseDto] }) data: KnowledgeBaseDto[];
  @ApiProperty({ example: false }) has_more: boolean;
}

export class DocumentErrorDto {
  @ApiProperty({ example: 'no_text_layer' }) code: string;
  @ApiProperty({ example: 'The PDF has no text layer (a scan?)' }) message: string;
}

export class KbDocumentDto {
  @ApiProperty({ example: 'file-6f1c2a9b0d3e4f5a6b7c8d9e' }) id: string;
  @ApiProperty({ enum: ['file', 'text', 'link'], example: 'file' }) kind: string;
  @ApiProperty({ example: 'handbook.pdf' }) filename: string;
  @ApiProperty({ nullable: true, type: String, example: 'Employee handbook' }) title: string | null;
  @ApiProperty({ nullable: true, type: String, example: null }) url: string | null;
  @ApiProperty({ nullable: true, type: String, example: null }) final_url: string | null;
  @ApiProperty({ enum: ['queued', 'in_progress', 'completed', 'failed', 'cancelled'], example: 'completed' })
  status: string;
  @ApiProperty({ type: DocumentErrorDto, nullable: true }) last_error: DocumentErrorDto | null;
  @ApiProperty({ example: 12 }) pages: number;
  @ApiProperty({ example: 5120 }) tokens: number;
  @ApiProperty({ example: 9 }) chunks: number;
  @ApiProperty({ nullable: true, type: Object, example: { lang: 'en' } }) metadata: Record<string, unknown> | null;
  @ApiProperty({
    nullable: true,
    type: String,
    description: "sha256 (hex) of the document's bytes (a link: of the copy fetched last; null until fetched)",
    example: '3f2a9c0d5e1b7a4c6d8e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e',
  })
  content_hash: string | null;
  @ApiProperty({
    nullable: true,
    type: String,
    description:
      'The document of the same name this one replaces: deleted when this one completes (kept while it is queued, in progress or failed)',
    example: null,
  })
  replaces: string | null;
  @ApiProperty({ example: '2026-01-01T00:00:00.000Z' }) created_at: string;
  @ApiProperty({ example: '2026-01-01T00:00:05.000Z' }) updated_at: string;
}

export class KbDocumentListDto {
  @ApiProperty({ type: [KbDocumentDto] }) data: KbDocumentDto[];
  @ApiProperty({ example: false }) has_more: boolean;
}

export class KbSourceDto {
  @ApiProperty({ example: 'file-6f1c2a9b0d3e4f5a6b7c8d9e' }) document_id: string;
  @ApiProperty({ nullable: true, type: String, example: 'handbook.pdf' }) title: string | null;
  @ApiProperty({ nullable: true, type: Number, example: 3 }) page: number | null;
  @ApiProperty({ nullable: true, type: String, example: null }) url: string | null;
}

export class KbSearchResultDto {
  @ApiProperty({ example: 1 }) rank: number;
  @ApiProperty({ example: 'file-6f1c2a9b0d3e4f5a6b7c8d9e#2' }) id: string;
  @ApiProperty({ example: 'To reset your password open Settings → Security.' }) data: string;
  @ApiProperty({ type: Object, example: { lang: 'en', chunk_index: 2 } }) metadata: Record<string, unknown>;
  @ApiProperty({ example: 0.8312 }) similarity_score: number;
  @ApiProperty({ example: '83.1%' }) similarity_percentage: string;
  @ApiProperty({ type: KbSourceDto }) source: KbSourceDto;
}

export class KbSearchUsageDto {
  @ApiProperty({ example: 8 }) query_tokens: number;
  @ApiProperty({ example: 0.0016 }) cost_rub: number;
}

export class KbSearchResponseDto {
  @ApiProperty({ type: [KbSearchResultDto] }) results: KbSearchResultDto[];
  @ApiProperty({ type: KbSearchUsageDto }) usage: KbSearchUsageDto;
  @ApiProperty({ type: CostBreakdownDto, description: 'What the ledger charged (= usage.cost_rub)' })
  cost: CostBreakdownDto;
  @ApiProperty({ example: 0.012 }) processing_time_seconds: number;
}

export class KbDeletedDto {
  @ApiProperty({
    description: 'The id of the deleted knowledge base or document',
    example: 'vs_1a2b3c4d5e6f7a8b9c0d1e2f',
  })
  id: string;
  @ApiProperty({ example: true }) deleted: true;
}

export const DOCUMENT_STATUSES = ['queued', 'in_progress', 'completed', 'failed', 'cancelled'] as const;

/** The document list's query: a page, a status, attribute values (`attributes[key]=value`, all must match). */
/** The `filters` query parameter of the document and file lists (OpenAI's filter grammar as JSON). */
export const FILTERS_QUERY_DESCRIPTION =
  'OpenAI\'s attribute filter as URL-encoded JSON, as search takes it: comparison {type: eq|ne|gt|gte|lt|lte|in|nin, key, value} or compound {type: and|or, filters: [...]}; types compare strictly (the string "2026" is not the number 2026); at most 64 comparisons';
export const FILTERS_QUERY_EXAMPLE =
  '{"type":"and","filters":[{"type":"eq","key":"lang","value":"en"},{"type":"gte","key":"year","value":2025}]}';

export class KbDocumentsQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: DOCUMENT_STATUSES, description: 'Only documents in this ingestion status' })
  @IsOptional()
  @IsIn(DOCUMENT_STATUSES)
  status?: (typeof DOCUMENT_STATUSES)[number];

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string' },
    description:
      'attributes[key]=value (for example attributes[lang]=en): only documents whose metadata holds that value under that key (a string, or a number / boolean written out); several keys must all match',
  })
  @Allow()
  attributes?: unknown;

  @ApiPropertyOptional({ type: String, description: FILTERS_QUERY_DESCRIPTION, example: FILTERS_QUERY_EXAMPLE })
  @Allow()
  filters?: unknown;
}
