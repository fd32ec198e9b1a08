import { Injectable } from '@nestjs/common';
import type { Caller } from '@app/auth';
import { Scoring, ScoringRequest } from '@app/chat/context/ports';
import { RerankService } from './rerank.service';

/**
 * Chat's Scoring port on the rerank engine (the small model, its per-key embedding cache included):
 * every text is scored, none filtered out.
 */
@Injectable()
export class RerankScoring extends Scoring {
  constructor(private readonly rerank: RerankService) {
    super();
  }

  async score(
    caller: Caller,
    req: ScoringRequest,
    requestId: string,
  ): Promise<{ scores: number[]; chargedMicro: number }> {
    const out = await this.rerank.rerank(
      caller,
      {
        query: req.query,
        parsed: { form: 'documents', items: req.texts.map((data, i) => ({ id: String(i), data, metadata: {} })) },
        size: 'small',
        threshold: -1,
        topK: req.texts.length,
        caching: true,
        columns: {},
        endpoint: req.endpoint,
        within: req.within,
      },
      requestId,
    );
    const scores: number[] = new Array<number>(req.texts.length).fill(Number.NaN);
    for (const r of out.ranked.results) scores[Number(r.id)] = r.similarity_score;
    return { scores, chargedMicro: out.chargedMicro };
  }

  assertAllowed(caller: Caller): void {
    this.rerank.assertAllowed(caller, 'small');
  }

  holdMicro(texts: string[], extraTokens: number): number {
    return this.rerank.holdMicro('small', this.rerank.countTokens(texts) + extraTokens);
  }
}
