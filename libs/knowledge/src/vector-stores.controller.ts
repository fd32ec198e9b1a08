import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { ApiKeyAuth, Caller, CurrentCaller } from '@app/auth';
import {
  CreateFileBatchDto,
  CreateVectorStoreDto,
  CreateVectorStoreFileDto,
  DeletedDto,
  FileBatchDto,
  PageQueryDto,
  SearchPageDto,
  UpdateVectorStoreDto,
  UpdateVectorStoreFileDto,
  VectorStoreDto,
  VectorStoreFileDto,
  VectorStoreFileListDto,
  VectorStoreFilesQueryDto,
  VectorStoreListDto,
  VectorStoreSearchDto,
} from './dto/vector-stores.dto';
import { VectorStoresApiService } from './vector-stores-api.service';
import { RateLimited } from '@app/governance';
import { ApiChargedErrors } from '@app/common';

/** How long the openai SDK's *AndPoll helpers wait between polls (the `openai-poll-after-ms` header). */
const POLL_AFTER_MS = '250';
const ID = { name: 'vector_store_id', example: 'vs_1a2b3c4d5e6f7a8b9c0d1e2f' };

/** OpenAI-compatible vector stores (= knowledge bases): the `openai` SDK's vectorStores.* unchanged. */
@ApiTags('Vector stores')
@ApiKeyAuth()
@Controller('v1/vector_stores')
export class VectorStoresController {
  constructor(private readonly api: VectorStoresApiService) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({ summary: 'Create a vector store (a knowledge base)' })
  @ApiOkResponse({ type: VectorStoreDto })
  async create(@CurrentCaller() caller: Caller, @Body() dto: CreateVectorStoreDto): Promise<VectorStoreDto> {
    return this.api.create(caller, dto);
  }

  @Get()
  @ApiOperation({ summary: "The team's vector stores (cursor pages)" })
  @ApiOkResponse({ type: VectorStoreListDto })
  async list(@CurrentCaller() caller: Caller, @Query() q: PageQueryDto): Promise<VectorStoreListDto> {
    return this.api.list(caller, q);
  }

  @Get(':vector_store_id')
  @ApiOperation({ summary: 'Retrieve a vector store' })
  @ApiParam(ID)
  @ApiOkResponse({ type: VectorStoreDto })
  async get(@CurrentCaller() caller: Caller, @Param('vector_store_id') id: string): Promise<VectorStoreDto> {
    return this.api.get(caller, id);
  }

  @Post(':vector_store_id')
  @HttpCode(200)
  @ApiParam(ID)
  @ApiOperation({ summary: 'Modify name / metadata' })
  @ApiOkResponse({ type: VectorStoreDto })
  async update(
    @CurrentCaller() caller: Caller,
    @Param('vector_store_id') id: string,
    @Body() dto: UpdateVectorStoreDto,
  ): Promise<VectorStoreDto> {
    return this.api.update(caller, id, dto);
  }

  @Delete(':vector_store_id')
  @ApiOperation({ summary: 'Delete a vector store with its file links and chunks (the files stay)' })
  @ApiParam(ID)
  @ApiOkResponse({ type: DeletedDto })
  async delete(@CurrentCaller() caller: Caller, @Param('vector_store_id') id: string): Promise<DeletedDto> {
    await this.api.delete(caller, id);
    return { id, object: 'vector_store.deleted', deleted: true };
  }

  @Post(':vector_store_id/files')
  @RateLimited()
  @HttpCode(200)
  @ApiParam(ID)
  @ApiOperation({ summary: 'Add a file (ingested asynchronously; poll its status)' })
  @ApiOkResponse({ type: VectorStoreFileDto })
  async addFile(
    @CurrentCaller() caller: Caller,
    @Param('vector_store_id') id: string,
    @Body() dto: CreateVectorStoreFileDto,
  ): Promise<VectorStoreFileDto> {
    return this.api.addFile(caller, id, dto);
  }

  @Get(':vector_store_id/files')
  @ApiOperation({
    summary:
      "The vector store's files (cursor pages), filtered by status (filter), attributes[key]=value and filters (OpenAI's attribute filter as JSON)",
  })
  @ApiParam(ID)
  @ApiOkResponse({ type: VectorStoreFileListDto })
  async listFiles(
    @CurrentCaller() caller: Caller,
    @Param('vector_store_id') id: string,
    @Query() q: VectorStoreFilesQueryDto,
    @Req() req: Request,
  ): Promise<VectorStoreFileListDto> {
    return this.api.listFiles(caller, id, q, undefined, req.query as Record<string, unknown>);
  }

  @Get(':vector_store_id/files/:file_id')
  @ApiOperation({ summary: 'Retrieve a vector store file with its ingestion status' })
  @ApiParam(ID)
  @ApiParam({ name: 'file_id', example: 'file-6f1c2a9b0d3e4f5a6b7c8d9e' })
  @ApiOkResponse({ type: VectorStoreFileDto })
  async getFile(
    @CurrentCaller() caller: Caller,
    @Param('vector_store_id') id: string,
    @Param('file_id') fileId: string,
    @Res({ passthrough: true }) res: Response,
  ): Promise<VectorStoreFileDto> {
    res.setHeader('openai-poll-after-ms', POLL_AFTER_MS);
    return this.api.file(caller, id, fileId);
  }

  @Post(':vector_store_id/files/:file_id')
  @HttpCode(200)
  @ApiParam(ID)
  @ApiParam({ name: 'file_id', example: 'file-6f1c2a9b0d3e4f5a6b7c8d9e' })
  @ApiOperation({ summary: "Update a file's attributes" })
  @ApiOkResponse({ type: VectorStoreFileDto })
  async updateFile(
    @CurrentCaller() caller: Caller,
    @Param('vector_store_id') id: string,
    @Param('file_id') fileId: string,
    @Body() dto: UpdateVectorStoreFileDto,
  ): Promise<VectorStoreFileDto> {
    return this.api.updateAttributes(caller, id, fileId, dto.attributes);
  }

  @Delete(':vector_store_id/files/:file_id')
  @ApiParam(ID)
  @ApiParam({ name: 'file_id', example: 'file-6f1c2a9b0d3e4f5a6b7c8d9e' })
  @ApiOperation({ summary: 'Remove a file from the vector store (the file itself stays)' })
  @ApiOkResponse({ type: DeletedDto })
  async deleteFile(
    @CurrentCaller() caller: Caller,
    @Param('vector_store_id') id: string,
    @Param('file_id') fileId: string,
  ): Promise<DeletedDto> {
    await this.api.deleteFile(caller, id, fileId);
    return { id: fileId, object: 'vector_store.file.deleted', deleted: true };
  }

  @Post(':vector_store_id/file_batches')
  @ApiOperation({ summary: 'Add several files at once (ingested asynchronously)' })
  @RateLimited()
  @HttpCode(200)
  @ApiParam(ID)
  @ApiBody({
    type: CreateFileBatchDto,
    examples: {
      file_ids: {
        summary: 'Files uploaded with POST /v1/files',
        value: { file_ids: ['file-6f1c2a9b0d3e4f5a6b7c8d9e'] },
      },
    },
  })
  @ApiOkResponse({ type: FileBatchDto })
  async createBatch(
    @CurrentCaller() caller: Caller,
    @Param('vector_store_id') id: string,
    @Body() dto: CreateFileBatchDto,
  ): Promise<FileBatchDto> {
    return this.api.createBatch(caller, id, dto);
  }

  @Get(':vector_store_id/file_batches/:batch_id')
  @ApiOperation({ summary: 'Retrieve a file batch with its file counts' })
  @ApiParam(ID)
  @ApiParam({ name: 'batch_id', example: 'vsfb_1a2b3c4d5e6f7a8b9c0d1e2f' })
  @ApiOkResponse({ type: FileBatchDto })
  async getBatch(
    @CurrentCaller() caller: Caller,
    @Param('vector_store_id') id: string,
    @Param('batch_id') batchId: string,
    @Res({ passthrough: true }) res: Response,
  ): Promise<FileBatchDto> {
    res.setHeader('openai-poll-after-ms', POLL_AFTER_MS);
    return this.api.batch(caller, id, batchId);
  }

  @Post(':vector_store_id/file_batches/:batch_id/cancel')
  @ApiOperation({ summary: "Cancel the batch's files that have not finished ingestion" })
  @HttpCode(200)
  @ApiParam(ID)
  @ApiParam({ name: 'batch_id', example: 'vsfb_1a2b3c4d5e6f7a8b9c0d1e2f' })
  @ApiOkResponse({ type: FileBatchDto })
  async cancelBatch(
    @CurrentCaller() caller: Caller,
    @Param('vector_store_id') id: string,
    @Param('batch_id') batchId: string,
  ): Promise<FileBatchDto> {
    return this.api.cancelBatch(caller, id, batchId);
  }

  @Get(':vector_store_id/file_batches/:batch_id/files')
  @ApiOperation({
    summary: 'The files of a batch (cursor pages), filtered by status (filter), attributes[key]=value and filters',
  })
  @ApiParam(ID)
  @ApiParam({ name: 'batch_id', example: 'vsfb_1a2b3c4d5e6f7a8b9c0d1e2f' })
  @ApiOkResponse({ type: VectorStoreFileListDto })
  async batchFiles(
    @CurrentCaller() caller: Caller,
    @Param('vector_store_id') id: string,
    @Param('batch_id') batchId: string,
    @Query() q: VectorStoreFilesQueryDto,
    @Req() req: Request,
  ): Promise<VectorStoreFileListDto> {
    return this.api.listFiles(caller, id, q, batchId, req.query as Record<string, unknown>);
  }

  @Post(':vector_store_id/search')
  @ApiChargedErrors()
  @HttpCode(200)
  @ApiParam(ID)
  @ApiOperation({
    summary: 'Hybrid search (vector + keyword, fused; final score = cosine). The query embedding is billed.',
  })
  @ApiOkResponse({ type: SearchPageDto })
  async searchStore(
    @CurrentCaller() caller: Caller,
    @Param('vector_store_id') id: string,
    @Body() dto: VectorStoreSearchDto,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<SearchPageDto> {
    const { body, outcome: out } = await this.api.searchStore(caller, id, dto, String(req.id));
    res.setHeader('x-gateway-cost-rub', String(out.costMicro / 1e6));
    res.setHeader('server-timing', `search;dur=${out.engineMs.toFixed(2)}, total;dur=${out.elapsedMs.toFixed(2)}`);
    return body;
  }
}
