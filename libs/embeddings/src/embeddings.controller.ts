import { Body, Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { AllowSession, ApiKeyAuth, Caller, CurrentCaller } from '@app/auth';
import { EmbeddingsRequestDto, EmbeddingsResponseDto } from './dto/embeddings.dto';
import { EmbeddingsApiService } from './embeddings-api.service';
import { ApiChargedErrors, RefuseUnknownMembers } from '@app/common';

@ApiTags('Embeddings')
@ApiKeyAuth()
@AllowSession('member')
@Controller()
export class EmbeddingsController {
  constructor(private readonly api: EmbeddingsApiService) {}

  @Post('v1/embeddings')
  @RefuseUnknownMembers(EmbeddingsRequestDto)
  @ApiChargedErrors()
  @HttpCode(200)
  @ApiOperation({ summary: 'Embeddings (OpenAI-compatible; the openai SDK works unchanged)' })
  @ApiBody({ type: EmbeddingsRequestDto })
  @ApiOkResponse({ type: EmbeddingsResponseDto })
  async openAi(
    @CurrentCaller() caller: Caller,
    @Body() dto: EmbeddingsRequestDto,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<EmbeddingsResponseDto> {
    const out = await this.api.create(caller, dto, String(req.id), '/v1/embeddings');
    res.setHeader('x-gateway-cost-rub', String(out.cost.total_cost_rub));
    return out;
  }

  @Post('api/v1/embeddings')
  @ApiChargedErrors()
  @HttpCode(200)
  @ApiOperation({ summary: 'Embeddings (REST, api-key header): same body and answer as /v1/embeddings' })
  @ApiBody({ type: EmbeddingsRequestDto })
  @ApiOkResponse({ type: EmbeddingsResponseDto })
  async rest(
    @CurrentCaller() caller: Caller,
    @Body() dto: EmbeddingsRequestDto,
    @Req() req: Request,
  ): Promise<EmbeddingsResponseDto> {
    return this.api.create(caller, dto, String(req.id), '/api/v1/embeddings');
  }
}
