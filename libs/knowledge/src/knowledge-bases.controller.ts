import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  Patch,
  Post,
  Query,
  Req,
  Res,
  UploadedFile,
  UseInterceptors,
} from '@nestjs/common';
import {
  ApiBody,
  ApiConsumes,
  ApiExtraModels,
  ApiOkResponse,
  ApiAcceptedResponse,
  ApiCreatedResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { ApiChargedErrors, microToRub, MultipartOrJsonBody, ShapedBody } from '@app/common';
import { AllowSession, ApiKeyAuth, Caller, CurrentCaller } from '@app/auth';
import {
  CreateKnowledgeBaseDto,
  KbDocumentDto,
  KbDocumentListDto,
  KbDocumentsQueryDto,
  KbSearchResponseDto,
  KnowledgeBaseDto,
  KnowledgeBaseListDto,
  KnowledgeBaseSearchDto,
  LinkDto,
  TextDocumentDto,
  UpdateKnowledgeBaseDto,
  UploadDocumentDto,
  KbDeletedDto,
} from './dto/knowledge-bases.dto';
import { PageQueryDto } from './dto/vector-stores.dto';
import { uploadInterceptor } from './files.controller';
import { UploadedBytes } from './files.service';
import { KnowledgeBasesApiService } from './knowledge-bases-api.service';
import { RateLimited } from '@app/governance';

const ID = { name: 'id', example: 'vs_1a2b3c4d5e6f7a8b9c0d1e2f' };

/** The REST knowledge-base API (api-key header; the same records as /v1/vector_stores, same ids). */
@ApiTags('Knowledge bases')
@ApiExtraModels(UploadDocumentDto, TextDocumentDto)
@ApiKeyAuth()
@AllowSession()
@Controller('api/v1/knowledge-bases')
export class KnowledgeBasesController {
  constructor(private readonly api: KnowledgeBasesApiService) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Create a knowledge base' })
  @ApiCreatedResponse({ type: KnowledgeBaseDto })
  async create(@CurrentCaller() caller: Caller, @Body() dto: CreateKnowledgeBaseDto): Promise<KnowledgeBaseDto> {
    return this.api.create(caller, dto);
  }

  @Get()
  @ApiOperation({ summary: "The team's knowledge bases (cursor pages)" })
  @ApiOkResponse({ type: KnowledgeBaseListDto })
  async list(@CurrentCaller() caller: Caller, @Query() q: PageQueryDto): Promise<KnowledgeBaseListDto> {
    return this.api.list(caller, q);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Retrieve a knowledge base' })
  @ApiParam(ID)
  @ApiOkResponse({ type: KnowledgeBaseDto })
  async get(@CurrentCaller() caller: Caller, @Param('id') id: string): Promise<KnowledgeBaseDto> {
    return this.api.get(caller, id);
  }

  @Patch(':id')
  @ApiOperation({ summary: 'Rename a knowledge base or change its description / metadata' })
  @ApiParam(ID)
  @ApiOkResponse({ type: KnowledgeBaseDto })
  async update(
    @CurrentCaller() caller: Caller,
    @Param('id') id: string,
    @Body() dto: UpdateKnowledgeBaseDto,
  ): Promise<KnowledgeBaseDto> {
    return this.api.update(caller, id, dto);
  }

  @Delete(':id')
  @ApiOperation({ summary: 'Delete a knowledge base with its documents and chunks' })
  @ApiParam(ID)
  @ApiOkResponse({ type: KbDeletedDto })
  async delete(@CurrentCaller() caller: Caller, @Param('id') id: string): Promise<KbDeletedDto> {
    await this.api.delete(caller, id);
    return { id, deleted: true };
  }

  @Post(':id/documents')
  @RateLimited()
  @HttpCode(202)
  @UseInterceptors(uploadInterceptor())
  @ApiParam(ID)
  @ApiConsumes('multipart/form-data', 'application/json')
  @ApiBody({
    schema: { oneOf: [{ $ref: getSchemaPath(UploadDocumentDto) }, { $ref: getSchemaPath(TextDocumentDto) }] },
  })
  @ApiOperation({
    summary:
      'Add a document: multipart `file` (+ `metadata` JSON string, `replace`), or JSON `{name, text, metadata, replace}`. Ingested asynchronously (202). The same content again answers the existing document; a new content under an existing name replaces that document once ingested, unless `replace` is false.',
  })
  @ApiAcceptedResponse({ type: KbDocumentDto })
  async addDocument(
    @CurrentCaller() caller: Caller,
    @Param('id') id: string,
    @UploadedFile() file: UploadedBytes | undefined,
    @MultipartOrJsonBody({
      multipart: UploadDocumentDto,
      json: TextDocumentDto,
      shape: 'The body must be a JSON object {name, text, metadata} (or multipart with a file).',
    })
    input: ShapedBody<UploadDocumentDto, TextDocumentDto>,
  ): Promise<KbDocumentDto> {
    if (input.kind === 'json') return this.api.addText(caller, id, input.body);
    return this.api.addUpload(caller, id, file, input.body.metadata, input.body.replace);
  }

  @Get(':id/documents')
  @ApiOperation({
    summary:
      "The knowledge base's documents with their ingestion status (cursor pages), filtered by status, attributes[key]=value and filters (OpenAI's attribute filter as JSON)",
  })
  @ApiParam(ID)
  @ApiOkResponse({ type: KbDocumentListDto })
  async documents(
    @CurrentCaller() caller: Caller,
    @Param('id') id: string,
    @Query() q: KbDocumentsQueryDto,
    @Req() req: Request,
  ): Promise<KbDocumentListDto> {
    return this.api.documents(caller, id, q, req.query as Record<string, unknown>);
  }

  @Get(':id/documents/:doc_id')
  @ApiOperation({ summary: 'Retrieve a document with its ingestion status' })
  @ApiParam(ID)
  @ApiParam({ name: 'doc_id', example: 'file-6f1c2a9b0d3e4f5a6b7c8d9e' })
  @ApiOkResponse({ type: KbDocumentDto })
  async document(
    @CurrentCaller() caller: Caller,
    @Param('id') id: string,
    @Param('doc_id') docId: string,
  ): Promise<KbDocumentDto> {
    return this.api.document(caller, id, docId);
  }

  @Post(':id/documents/:doc_id/retry')
  @RateLimited()
  @HttpCode(202)
  @ApiParam(ID)
  @ApiParam({ name: 'doc_id', example: 'file-6f1c2a9b0d3e4f5a6b7c8d9e' })
  @ApiOperation({ summary: 'Run the ingestion of a failed document again (409 document_not_failed otherwise)' })
  @ApiAcceptedResponse({ type: KbDocumentDto })
  async retry(
    @CurrentCaller() caller: Caller,
    @Param('id') id: string,
    @Param('doc_id') docId: string,
  ): Promise<KbDocumentDto> {
    return this.api.retryDocument(caller, id, docId);
  }

  @Delete(':id/documents/:doc_id')
  @ApiOperation({ summary: 'Delete a document and its chunks' })
  @ApiParam(ID)
  @ApiParam({ name: 'doc_id', example: 'file-6f1c2a9b0d3e4f5a6b7c8d9e' })
  @ApiOkResponse({ type: KbDeletedDto })
  async deleteDocument(
    @CurrentCaller() caller: Caller,
    @Param('id') id: string,
    @Param('doc_id') docId: string,
  ): Promise<KbDeletedDto> {
    await this.api.deleteDocument(caller, id, docId);
    return { id: docId, deleted: true };
  }

  @Post(':id/links')
  @RateLimited()
  @HttpCode(202)
  @ApiParam(ID)
  @ApiOperation({ summary: 'Add a web link (fetched through the SSRF guard, parsed, embedded asynchronously)' })
  @ApiAcceptedResponse({ type: KbDocumentDto })
  async addLink(
    @CurrentCaller() caller: Caller,
    @Param('id') id: string,
    @Body() dto: LinkDto,
  ): Promise<KbDocumentDto> {
    return this.api.addLink(caller, id, dto);
  }

  @Post(':id/links/:link_id/refresh')
  @RateLimited()
  @HttpCode(202)
  @ApiParam(ID)
  @ApiParam({ name: 'link_id', example: 'file-6f1c2a9b0d3e4f5a6b7c8d9e' })
  @ApiOperation({ summary: 'Fetch the link again; unchanged content is not re-embedded' })
  @ApiAcceptedResponse({ type: KbDocumentDto })
  async refresh(
    @CurrentCaller() caller: Caller,
    @Param('id') id: string,
    @Param('link_id') linkId: string,
  ): Promise<KbDocumentDto> {
    return this.api.refreshLink(caller, id, linkId);
  }

  @Post(':id/search')
  @ApiChargedErrors()
  @HttpCode(200)
  @ApiParam(ID)
  @ApiOperation({
    summary: 'Search the knowledge base: rerank-style results with their source; the query embedding is billed',
  })
  @ApiOkResponse({ type: KbSearchResponseDto })
  async searchKb(
    @CurrentCaller() caller: Caller,
    @Param('id') id: string,
    @Body() dto: KnowledgeBaseSearchDto,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<KbSearchResponseDto> {
    const { body, outcome: out } = await this.api.searchKnowledgeBase(caller, id, dto, String(req.id));
    res.setHeader('server-timing', `search;dur=${out.engineMs.toFixed(2)}, total;dur=${out.elapsedMs.toFixed(2)}`);
    res.setHeader('x-gateway-cost-rub', String(microToRub(out.costMicro)));
    return body;
  }
}
