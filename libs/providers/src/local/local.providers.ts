import { join } from 'node:path';
import { Clock, ParserPool, ParserTask } from '@app/common';
import { ChatProvider, EmbeddingProvider } from '../chat-provider';
import { ImageProvider } from '../images/image-providers';
import { ImageGenerationRequest, ImageGenerationResult } from '../images/image-types';
import type { ProviderAdapters } from '../provider-adapters';
import {
  CanonicalChatChunk,
  CanonicalChatRequest,
  CanonicalChatResponse,
  CanonicalEmbeddingRequest,
  CanonicalEmbeddingResponse,
} from '../types';
import { contentText } from '../message-text';
import { answerExtractively } from './extractive-answer';
import { LexicalEmbedder } from './lexical-embedder';
import { generateLocalImages } from './local-image';
import { TokenCounter } from '../tokenizer/token-counter';

/** A line that is only a `<source …>` or `</source>` tag (chat context format). */
const SOURCE_TAG_LINE = /^[ \t]*<\/?source\b[^>\n]*>[ \t]*$/gim;

/**
 * The offline `local` chat model. NOT generative: it quotes the passages of the supplied system
 * prompt and earlier messages that are lexically most similar to the last user message (feature
 * hashing, see LexicalEmbedder). Deterministic; usage is counted with the o200k tokenizer so that
 * billing works exactly as for remote models.
 */
export class LocalChatProvider implements ChatProvider {
  constructor(
    private readonly embedder: LexicalEmbedder,
    private readonly tokens: TokenCounter,
    private readonly clock: Clock,
  ) {}

  async complete(req: CanonicalChatRequest): Promise<CanonicalChatResponse> {
    const { text, finish } = this.answer(req);
    const prompt = this.tokens.countChat(req.messages.map((m) => ({ role: m.role, content: contentText(m.content) })));
    const completion = this.tokens.count(text);
    const now = this.clock.now();
    return {
      id: `chatcmpl-local-${now.toString(36)}`,
      object: 'chat.completion',
      created: Math.floor(now / 1000),
      model: req.model,
      choices: [
        { index: 0, message: { role: 'assistant', content: text, reasoning_content: null }, finish_reason: finish },
      ],
      usage: {
        prompt_tokens: prompt,
        completion_tokens: completion,
        total_tokens: prompt + completion,
        cache_read_tokens: 0,
        cache_write_tokens: 0,
      },
    };
  }

  async stream(req: CanonicalChatRequest, signal?: AbortSignal): Promise<AsyncIterable<CanonicalChatChunk>> {
    const full = await this.complete(req);
    const text = full.choices[0].message.content ?? '';
    const base = { id: full.id, object: 'chat.completion.chunk' as const, created: full.created, model: full.model };
    const pieces = text.match(/\S+\s*|\s+/g) ?? [];
    return (async function* () {
      yield {
        ...base,
        choices: [{ index: 0, delta: { role: 'assistant' as const, content: '' }, finish_reason: null }],
      };
      for (const piece of pieces) {
        if (signal?.aborted) return;
        yield { ...base, choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] };
        await new Promise((r) => setImmediate(r));
      }
      yield { ...base, choices: [{ index: 0, delta: {}, finish_reason: full.choices[0].finish_reason }] };
      yield { ...base, choices: [], usage: full.usage };
    })();
  }

  private answer(req: CanonicalChatRequest): { text: string; finish: 'stop' | 'length' } {
    // the gateway's context markup (<source id="n" …> and </source> lines) is no passage to quote
    const system = req.messages
      .filter((m) => m.role === 'system' || m.role === 'developer')
      .map((m) => contentText(m.content).replace(SOURCE_TAG_LINE, ''))
      .join('\n');
    const turns = req.messages.filter((m) => m.role !== 'system' && m.role !== 'developer');
    let lastUser = -1;
    turns.forEach((m, i) => {
      if (m.role === 'user') lastUser = i;
    });
    const prompt = lastUser >= 0 ? contentText(turns[lastUser].content) : '';
    const history = turns
      .filter((_, i) => i !== lastUser)
      .map((m) => ({ role: m.role, content: contentText(m.content) }));
    const out = answerExtractively(
      { system: system || undefined, messages: history, prompt, maxTokens: req.max_tokens },
      this.embedder,
      this.tokens,
    );
    return { text: out.text, finish: out.truncated ? 'length' : 'stop' };
  }
}

/**
 * Input past this many characters is embedded in a worker thread (see embed-task.ts). Embedding and
 * counting run at about 10 µs a character on a loaded machine, so this keeps an inline call within
 * ~100 ms of the event loop; a document's last, short batch of chunks also goes to the worker.
 */
export const LOCAL_EMBED_OFFLOAD_CHARS = 8 * 1024;
const EMBED_TASK: ParserTask = { module: join(__dirname, 'embed-task'), fn: 'embedTexts' };

/**
 * Lexical (not semantic) embeddings at any dimension; token usage counted with cl100k like OpenAI's
 * embedding models. A large batch (a document's chunks) runs in the worker pool, a small one inline:
 * posting it would cost more than the work.
 */
export class LocalEmbeddingProvider implements EmbeddingProvider {
  constructor(
    private readonly embedder: LexicalEmbedder,
    private readonly tokens: TokenCounter,
    private readonly defaultDimensions: number,
    private readonly pool?: ParserPool,
  ) {}

  async embed(req: CanonicalEmbeddingRequest): Promise<CanonicalEmbeddingResponse> {
    const dims = req.dimensions ?? this.defaultDimensions;
    let chars = 0;
    for (const t of req.input) chars += t.length;
    if (this.pool && chars > LOCAL_EMBED_OFFLOAD_CHARS) {
      const out = await this.pool.run<{ vectors: Float32Array; tokens: number }>(
        EMBED_TASK,
        req.input,
        dims,
        this.tokens.encoding,
      );
      const vectors = req.input.map((_, i) => out.vectors.subarray(i * dims, (i + 1) * dims));
      return { vectors, prompt_tokens: out.tokens };
    }
    let tokens = 0;
    for (const t of req.input) tokens += this.tokens.count(t);
    return { vectors: this.embedder.embedMany(req.input, dims), prompt_tokens: tokens };
  }
}

/** The offline procedural generator (see local-image.ts: a placeholder pattern, not a model). */
export class LocalImageProvider implements ImageProvider {
  generate(req: ImageGenerationRequest): Promise<ImageGenerationResult> {
    return Promise.resolve(generateLocalImages(req));
  }
}

/** The local family: no connection, the shared embedder and tokenizers. */
export const localProvider: ProviderAdapters = {
  type: 'local',
  chat: (ctx) => new LocalChatProvider(ctx.embedder, ctx.tokenizers.chat, ctx.clock),
  embeddings: (ctx, model) =>
    new LocalEmbeddingProvider(ctx.embedder, ctx.tokenizers.embeddings, model.dimensions ?? 1536, ctx.pool),
  images: () => new LocalImageProvider(),
};
