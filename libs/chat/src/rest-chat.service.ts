import { Injectable } from '@nestjs/common';
import { ApiError } from '@app/common';
import type { Caller } from '@app/auth';
import { ChatOutcome, ChatService, PreparedChat } from './chat.service';
import { costToRub } from './chat-cost';
import { ChatRequestDto } from './dto/chat-request.dto';
import { ChatResponseDto } from './dto/chat-response.dto';
import { MAX_IMAGES, MAX_PDFS } from './image-inliner';
import { buildRestMessages, extractJsonDocument } from './messages';
import { SseWriter } from './sse-writer';

const ENDPOINT = '/api/v1/chat';

/** POST /api/v1/chat: spec request (2.1) → chat pipeline → spec response (2.2). */
@Injectable()
export class RestChatService {
  constructor(private readonly chat: ChatService) {}

  async complete(caller: Caller, body: ChatRequestDto, requestId: string, signal: AbortSignal): Promise<ChatResponseDto> {
    const prep = await this.prepare(caller, body, requestId);
    let jsonText: string | null = null;
    const out = await this.chat.complete(prep, signal, (r, model) => {
      if (!body.response_format_json) return;
      jsonText = extractJsonDocument(r.choices[0]?.message.content ?? '');
      if (jsonText === null) throw ApiError.badGateway(`${model.key} did not return a valid JSON document; nothing was charged.`, 'upstream_invalid_json');
    });
    const msg = out.response.choices[0]?.message;
    return this.toDto(out, jsonText ?? msg?.content ?? '', msg?.reasoning_content ?? '');
  }

  async stream(caller: Caller, body: ChatRequestDto, requestId: string, signal: AbortSignal, sse: SseWriter): Promise<void> {
    const prep = await this.prepare(caller, body, requestId);
    const out = await this.chat.stream(prep, signal, async (chunk) => {
      sse.start({ 'x-gateway-model': chunk.model });
      const d = chunk.choices[0]?.delta;
      if (d?.reasoning_content) await sse.event('reasoning', { reasoning: d.reasoning_content });
      if (d?.content) await sse.event('delta', { text: d.content });
    });
    if (out.aborted) return;
    sse.start({ 'x-gateway-model': out.servedModel.key });
    await sse.event('done', this.toDto(out, out.text, out.reasoning));
  }

  private async prepare(caller: Caller, body: ChatRequestDto, requestId: string): Promise<PreparedChat> {
    // Projects and knowledge bases arrive with the projects module; until then no id exists.
    if (body.project_id !== undefined) throw ApiError.notFound(`Project '${body.project_id}' not found.`, 'project_not_found', 'project_id');
    if (body.knowledge_base_id !== undefined) throw ApiError.notFound(`Knowledge base '${body.knowledge_base_id}' not found.`, 'knowledge_base_not_found', 'knowledge_base_id');
    const urls = body.file_urls ?? [];
    const pdfs = urls.filter(isPdf);
    const images = urls.filter((u) => !isPdf(u));
    if (pdfs.length > MAX_PDFS) throw ApiError.tooLarge(`At most ${MAX_PDFS} PDF files per request (got ${pdfs.length}).`, 'file_urls');
    if (images.length > MAX_IMAGES) throw ApiError.tooLarge(`At most ${MAX_IMAGES} images per request (got ${images.length}).`, 'file_urls');
    if (pdfs.length) throw ApiError.badRequest('PDF files in file_urls are not supported by chat yet; send images, or the PDF text in the prompt.', 'file_urls', 'pdf_not_supported');
    urls.forEach((u, i) => {
      if (!/^(https?:\/\/|data:image\/)/i.test(u)) throw ApiError.badRequest(`file_urls[${i}] must be an http(s) URL or a data:image/… URL.`, `file_urls[${i}]`);
    });
    return this.chat.prepare({
      caller,
      requestId,
      endpoint: ENDPOINT,
      modelKey: body.model,
      fallbacks: body.fallbacks,
      messages: buildRestMessages({ prompt: body.prompt, system_prompt: body.system_prompt, messages: body.messages, images, json: body.response_format_json === true }),
      params: {
        user: body.user_id,
        max_tokens: body.max_tokens,
        temperature: body.temperature,
        response_format: body.response_format_json ? { type: 'json_object' } : undefined,
      },
      imageParam: 'file_urls',
    });
  }

  private toDto(out: ChatOutcome, text: string, reasoning: string): ChatResponseDto {
    const served = out.servedModel;
    const cacheAware = served.pricing.cache_read_rub_per_1m !== null || served.pricing.cache_write_rub_per_1m !== null || out.usage.cache_read_tokens + out.usage.cache_write_tokens > 0;
    return {
      response: { text, reasoning: reasoning === '' ? null : reasoning },
      usage: {
        prompt_tokens: out.usage.prompt_tokens,
        completion_tokens: out.usage.completion_tokens,
        total_tokens: out.usage.prompt_tokens + out.usage.completion_tokens,
        cache_read_tokens: cacheAware ? out.usage.cache_read_tokens : null,
        cache_write_tokens: cacheAware ? out.usage.cache_write_tokens : null,
      },
      cost: costToRub(out.cost, out.chargedMicro),
      model: { model: served.key, context_window: served.context_window, supports_images: served.supports_images },
      has_reasoning: reasoning !== '',
    };
  }
}

function isPdf(url: string): boolean {
  return /^data:application\/pdf/i.test(url) || /\.pdf(\?|#|$)/i.test(url);
}
