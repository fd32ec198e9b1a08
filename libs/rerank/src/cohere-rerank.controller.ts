import { Body, Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { AllowSession, ApiKeyAuth, Caller, CurrentCaller } from '@app/auth';
import { CohereRerankRequestDto } from './dto/cohere-rerank.dto';
import { CohereRerankResponseDto } from './dto/cohere-rerank-response.dto';
import { RerankApiService } from './rerank-api.service';
import { ApiChargedErrors } from '@app/common';

/** Cohere (v1 and v2 paths) / Jina compatible rerank on the same engine, cache and billing. */
@ApiTags('OpenAI-compatible')
@ApiKeyAuth()
@AllowSession('member')
@Controller()
export class CohereRerankController {
  constructor(private readonly api: RerankApiService) {}

  @Post(['v1/rerank', 'v2/rerank'])
  @ApiChargedErrors()
  @HttpCode(200)
  @ApiOperation({ summary: 'Rerank (Cohere/Jina-compatible): {model, query, documents, top_n, return_documents}' })
  @ApiBody({ type: CohereRerankRequestDto })
  @ApiOkResponse({ type: CohereRerankResponseDto })
  async rerankDocuments(
    @CurrentCaller() caller: Caller,
    @Body() body: CohereRerankRequestDto,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<CohereRerankResponseDto> {
    const out = await this.api.cohere(caller, body, String(req.id));
    res.setHeader('x-gateway-cost-rub', String(out.cost.total_cost_rub));
    return out;
  }
}
