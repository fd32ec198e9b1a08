import { Injectable } from '@nestjs/common';

/** A model call made by background work (not an HTTP request), as the request log records it. */
export interface BackgroundCall {
  requestId: string;
  teamId: string;
  /** what ran, e.g. "knowledge-base ingestion" */
  endpoint: string;
  model: string | null;
  status: number;
  errorCode: string | null;
  inputTokens: number;
  costMicro: number;
  latencyMs: number;
  knowledgeBaseId: string | null;
  /** USD-priced models: the CBR rate and its date the charge used */
  fx?: { rate: number; date: string } | null;
}

/**
 * Where background work reports its model calls (knowledge-base ingestion embeds chunks outside any
 * HTTP request). The request log plugs its sink in when it starts; without one, reports go nowhere.
 */
@Injectable()
export class BackgroundCalls {
  private sink: ((call: BackgroundCall) => void) | null = null;

  use(sink: ((call: BackgroundCall) => void) | null): void {
    this.sink = sink;
  }

  /** Never throws. */
  report(call: BackgroundCall): void {
    try {
      this.sink?.(call);
    } catch {
      /* the log never fails the work */
    }
  }
}
