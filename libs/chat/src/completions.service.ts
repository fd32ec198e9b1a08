import { Injectable } from '@nestjs/common';
import type { Caller } from '@app/auth';
import type { CanonicalChatResponse, CanonicalUsage } from '@app/providers';
import { ChatOutcome, ChatService, PreparedChat } from './chat.service';
import { CostRubDto, costToRub } from './chat-cost';
import { completionParams } from './completion-params';
import { ChatCompletionRequestDto } from './dto/chat-completions.dto';
import { normalizeCompletionMessages } from './messages';
import { SseWriter } from './sse-writer';

const ENDPOINT = '/v1/chat/completions';

export interface OpenAiUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number };
  completion_tokens_details: { reasoning_tokens: number };
}

/** POST /v1/chat/completions: OpenAI wire format in and out, with an extra `cost` object. */
@Injectable()
export class CompletionsService {
  constructor(private readonly chat: ChatService) {}

  prepare(caller: Caller, dto: ChatCompletionRequestDto, requestId: string): Promise<PreparedChat> {
    return this.chat.prepare({
      caller,
      requestId,
      endpoint: ENDPOINT,
      modelKey: dto.model,
      fallbacks: dto.fallbacks,
      messages: normalizeCompletionMessages(dto.messages),
      params: completionParams(dto),
      imageParam: 'messages',
    });
  }

  async complete(prep: PreparedChat, signal: AbortSignal): Promise<{ body: Record<string, unknown>; cost: CostRubDto; servedModel: string }> {
    const out = await this.chat.complete(prep, signal);
    const cost = costToRub(out.cost, out.chargedMicro);
    return { body: { ...toOpenAiResponse(out.response), usage: toOpenAiUsage(out.usage), cost }, cost, servedModel: out.servedModel.key };
  }

  /** Streams chunks as `data:` lines, then (with include_usage) a usage chunk with choices: [], then [DONE]. */
  async stream(prep: PreparedChat, signal: AbortSignal, sse: SseWriter, includeUsage: boolean): Promise<void> {
    const out: ChatOutcome & { aborted: boolean } = await this.chat.stream(prep, signal, async (chunk) => {
      sse.start({ 'x-gateway-model': chunk.model });
      await sse.data(includeUsage ? { ...chunk, usage: null } : chunk);
    });
    if (out.aborted) return;
    sse.start({ 'x-gateway-model': out.servedModel.key });
    if (includeUsage) {
      await sse.data({ id: out.response.id, object: 'chat.completion.chunk', created: out.response.created, model: out.response.model, choices: [], usage: toOpenAiUsage(out.usage), cost: costToRub(out.cost, out.chargedMicro) });
    }
    await sse.data('[DONE]');
  }
}

function toOpenAiResponse(r: CanonicalChatResponse): Record<string, unknown> {
  return {
    id: r.id,
    object: 'chat.completion',
    created: r.created,
    model: r.model,
    choices: r.choices.map((c) => ({
      index: c.index,
      message: {
        role: 'assistant',
        content: c.message.content,
        refusal: c.message.refusal ?? null,
        ...(c.message.tool_calls?.length ? { tool_calls: c.message.tool_calls } : {}),
        ...(c.message.reasoning_content ? { reasoning_content: c.message.reasoning_content } : {}),
      },
      logprobs: null,
      finish_reason: c.finish_reason,
    })),
    system_fingerprint: null,
  };
}

export function toOpenAiUsage(u: CanonicalUsage): OpenAiUsage {
  return {
    prompt_tokens: u.prompt_tokens,
    completion_tokens: u.completion_tokens,
    total_tokens: u.prompt_tokens + u.completion_tokens,
    prompt_tokens_details: { cached_tokens: u.cache_read_tokens },
    completion_tokens_details: { reasoning_tokens: u.reasoning_tokens ?? 0 },
  };
}
