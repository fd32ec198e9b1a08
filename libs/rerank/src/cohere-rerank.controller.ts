import { Body, Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { ApiError, microToRub } from '@app/common';
import { ApiKeyAuth, Caller, CurrentCaller } from '@app/auth';
import { RerankItem } from './engine';
import { CohereRerankRequestDto } from './dto/cohere-rerank.dto';
import { CohereRerankResponseDto } from './dto/cohere-rerank-response.dto';
import { RERANK_LIMITS } from './dto/rerank.dto';
import { RerankService } from './rerank.service';

/** Cohere (v1 and v2 paths) / Jina compatible rerank on the same engine, cache and billing. */
@ApiTags('OpenAI-compatible')
@ApiKeyAuth()
@Controller()
export class CohereRerankController {
  constructor(private readonly rerank: RerankService) {}

  @Post(['v1/rerank', 'v2/rerank'])
  @HttpCode(200)
  @ApiOperation({ summary: 'Rerank (Cohere/Jina-compatible): {model, query, documents, top_n, return_documents}' })
  @ApiBody({ type: CohereRerankRequestDto })
  @ApiOkResponse({ type: CohereRerankResponseDto })
  async rerankDocuments(@CurrentCaller() caller: Caller, @Body() body: CohereRerankRequestDto, @Req() req: Request, @Res({ passthrough: true }) res: Response): Promise<CohereRerankResponseDto> {
    if (body.documents.length > RERANK_LIMITS.maxItems) throw ApiError.tooLarge(`At most ${RERANK_LIMITS.maxItems} documents per request.`, 'documents');
    const items: RerankItem[] = body.documents.map((d, i) => {
      const text = typeof d === 'string' ? d : typeof d === 'object' && d !== null && typeof (d as { text?: unknown }).text === 'string' ? (d as { text: string }).text : null;
      if (text === null) throw ApiError.badRequest(`documents[${i}] must be a string or an object with a "text" string.`, `documents[${i}]`);
      return { id: String(i), data: text, metadata: {} };
    });
    const size = /large/i.test(body.model ?? '') ? 'large' : 'small';
    const topK = Math.min(body.top_n ?? items.length, items.length);
    const out = await this.rerank.rerank(
      caller,
      { query: body.query, parsed: { form: 'documents', items }, size, threshold: -1, topK, caching: true, columns: {}, endpoint: '/v1/rerank' },
      String(req.id),
    );
    const total = out.queryTokens + out.documentTokens;
    const costRub = microToRub(out.chargedMicro);
    res.setHeader('x-gateway-cost-rub', String(costRub));
    return {
      id: String(req.id),
      model: body.model ?? size,
      results: out.ranked.results.map((r) => ({ index: Number(r.id), relevance_score: r.similarity_score, ...(body.return_documents ? { document: { text: r.data } } : {}) })),
      meta: { api_version: { version: '1' }, billed_units: { search_units: 1, input_tokens: total } },
      usage: { total_tokens: total },
      // gateway extension, as on every other endpoint: what the ledger charged
      cost: { total_cost_rub: costRub, currency: 'RUB' },
    };
  }
}
