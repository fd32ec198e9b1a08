import { ApiProperty } from '@nestjs/swagger';
import { STORE_MATERIAL_KINDS } from '../context/material-kinds';

/** One `<source id="n">` the model was given: a full material or a retrieved fragment (gateway extension). */
export class ChatSourceDto {
  @ApiProperty({ example: 1, description: 'The number the model cites as [n]' }) n: number;
  @ApiProperty({
    nullable: true,
    type: String,
    example: 'vs_5c1d0e2f',
    description: 'Project material id; the knowledge base id for knowledge-base fragments; null for file_urls PDFs',
  })
  material_id: string | null;
  @ApiProperty({
    enum: [...STORE_MATERIAL_KINDS, 'knowledge_base', 'file_url'],
    example: 'knowledge_base',
  })
  kind: string;
  @ApiProperty({ example: 'handbook.pdf' }) title: string;
  @ApiProperty({ nullable: true, type: Number, example: 3, description: 'PDF page of the fragment' }) page:
    number | null;
  @ApiProperty({ nullable: true, type: String, example: null }) url: string | null;
  @ApiProperty({
    nullable: true,
    type: Number,
    example: 0.4321,
    description: 'Relevance (rerank cosine); null for a material given in full',
  })
  score: number | null;
  @ApiProperty({
    nullable: true,
    type: String,
    example: 'file-7a1b2c',
    description: 'The knowledge document (file) the text comes from',
  })
  document_id: string | null;
  @ApiProperty({
    nullable: true,
    type: String,
    example: 'handbook.pdf',
    description:
      'The file name of the knowledge document of a retrieved fragment; null for full materials and file_urls PDFs',
  })
  filename: string | null;
  @ApiProperty({
    nullable: true,
    type: Number,
    example: 4,
    description:
      'Position of the fragment (chunk) among its document’s chunks, from 0, in the order of the document text; null for a material given in full',
  })
  chunk_index: number | null;
}

/** How the context was built (gateway extension). */
export class ChatContextInfoDto {
  @ApiProperty({
    enum: ['full', 'rag'],
    example: 'rag',
    description:
      'full: documents in full (modes big_docs/code/data_analysis or a full_context model); rag: retrieved fragments',
  })
  mode: 'full' | 'rag';
  @ApiProperty({
    type: [String],
    example: [],
    description: 'Materials given in full (project material ids; URLs of file_urls PDFs)',
  })
  materials_full: string[];
  @ApiProperty({ example: 3, description: 'Retrieved fragments in the context' }) fragments: number;
  @ApiProperty({ example: 412, description: 'Tokens of the context system message (part of usage.prompt_tokens)' })
  tokens: number;
  @ApiProperty({
    example: 29622,
    description: 'Tokens the context could take: context_window − max output − the request’s prompt − 5 % margin',
  })
  budget_tokens: number;
  @ApiProperty({ example: 0, description: 'Project images passed to the model' }) images: number;
  @ApiProperty({
    example: 0,
    description: 'Project images not passed (model without image input, or over 20 per request)',
  })
  images_skipped: number;
  @ApiProperty({ type: [String], example: [], description: 'What was left out and why' }) notes: string[];
}
