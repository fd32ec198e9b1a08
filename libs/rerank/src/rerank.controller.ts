import { Body, Controller, Delete, Get, HttpCode, Post, Req } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { AllowSession, ApiKeyAuth, Caller, CurrentCaller } from '@app/auth';
import { CacheClearedDto, CacheStatsDto, RerankRequestDto, RerankResponseDto } from './dto/rerank.dto';
import { RerankApiService } from './rerank-api.service';
import { RerankService } from './rerank.service';
import { ApiChargedErrors } from '@app/common';

@ApiTags('Rerank')
@ApiKeyAuth()
@Controller('api/v1/rerank')
export class RerankController {
  constructor(
    private readonly rerank: RerankService,
    private readonly api: RerankApiService,
  ) {}

  @Post()
  @AllowSession('member')
  @ApiChargedErrors()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Rerank documents, chunks of a text, or table rows by cosine similarity to a query',
  })
  @ApiBody({ type: RerankRequestDto })
  @ApiOkResponse({ type: RerankResponseDto })
  @ApiResponse({ status: 413, description: 'More than 10,000 documents/chunks or 20 MB of text' })
  rerankDocuments(
    @CurrentCaller() caller: Caller,
    @Body() body: RerankRequestDto,
    @Req() req: Request,
  ): Promise<RerankResponseDto> {
    return this.api.rest(caller, body, String(req.id));
  }

  @Get('cache-stats')
  @ApiOperation({ summary: "Statistics of the calling API key's rerank cache" })
  @ApiOkResponse({ type: CacheStatsDto })
  cacheStats(@CurrentCaller() caller: Caller): Promise<CacheStatsDto> {
    return this.api.cacheStats(caller);
  }

  @Delete('cache')
  @HttpCode(200)
  @ApiOperation({ summary: "Clear the calling API key's rerank cache (other keys are untouched)" })
  @ApiOkResponse({ type: CacheClearedDto })
  async clearCache(@CurrentCaller() caller: Caller): Promise<CacheClearedDto> {
    return { deleted: await this.rerank.clear(caller) };
  }
}
