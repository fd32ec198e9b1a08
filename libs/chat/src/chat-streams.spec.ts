/**
 * Streaming services yield events and only the controller writes SSE. These specs
 * consume the services' event streams directly — no HTTP, no SseWriter — against a scripted
 * provider and the in-memory money path: the events and their order, the headers known before the
 * first event, in-band errors, and a consumer that stops early (upstream aborted, delivered tokens
 * billed before the iteration ends).
 */
import { AppConfig } from '@app/config';
import { McpToolLoop } from './responses-mcp-loop';
import { ApiError, Clock, Sleeper } from '@app/common';
import type { Caller } from '@app/auth';
import { BillingService, MeterSpec, PricingService } from '@app/billing';
import {
  CanonicalChatChunk,
  CanonicalChatRequest,
  CanonicalChatResponse,
  ChatProvider,
  DeploymentCooldowns,
  ModelCatalogService,
  ProviderError,
  ProviderRegistry,
  ResilienceEvents,
  TokenCounter,
  TokenizerService,
  UpstreamRouter,
} from '@app/providers';
import { ChatService } from './chat.service';
import { CompletionsService } from './completions.service';
import { ChatContextService } from './context/chat-context.service';
import { FileUrlResolver } from './context/file-urls';
import { ChatCompletionRequestDto } from './dto/chat-completions.dto';
import { ChatRequestDto } from './dto/chat-request.dto';
import { ResponseCreateRequestDto } from './dto/responses.dto';
import { pullFrom, SseEvent } from './event-stream';
import { ImageInliner } from './image-inliner';
import { ResponsesService } from './responses.service';
import { ResponsesRepository } from './responses.repository';
import { RestChatService } from './rest-chat.service';
import { ENV_PROVIDERS } from '@app/providers';

const PRICE = { input: 15, output: 60 }; // gpt-4o-mini, µRUB per token

class FakeBilling {
  charges: { costMicro: number; completionTokens: number; estimated: boolean }[] = [];
  async meter<T>(spec: MeterSpec<T>) {
    let result: T;
    try {
      result = await spec.run(spec.holdMicro);
    } catch (err) {
      const partial = spec.chargeOnFailure?.(err) ?? null;
      if (partial)
        this.charges.push({
          costMicro: partial.costMicro,
          completionTokens: partial.details.completionTokens,
          estimated: true,
        });
      throw err;
    }
    const c = spec.charge(result);
    if (c)
      this.charges.push({
        costMicro: c.costMicro,
        completionTokens: c.details.completionTokens,
        estimated: (c.details.breakdown as { usage_estimated: boolean }).usage_estimated,
      });
    return { result, charged: c ? { chargedMicro: c.costMicro, balanceAfterMicro: 0, ledgerEntryId: 1 } : null };
  }
}

/** Streams `deltas` (then a usage chunk); may fail after some; records the signal and whether the upstream was closed. */
class StreamingProvider implements ChatProvider {
  deltas = ['Hel', 'lo', ' there', '!'];
  failAfter: number | null = null;
  signal: AbortSignal | null = null;
  closed = false;
  async complete(): Promise<CanonicalChatResponse> {
    throw new Error('not used');
  }
  async stream(req: CanonicalChatRequest, signal: AbortSignal): Promise<AsyncIterable<CanonicalChatChunk>> {
    this.signal = signal;
    const self = { deltas: this.deltas, failAfter: this.failAfter, close: () => (this.closed = true) };
    return (async function* () {
      try {
        for (let i = 0; i < self.deltas.length; i++) {
          if (self.failAfter !== null && i === self.failAfter)
            throw new ProviderError('upstream', 'connection reset mid-stream', 502);
          yield {
            id: 's1',
            object: 'chat.completion.chunk',
            created: 1,
            model: req.model,
            choices: [
              {
                index: 0,
                delta: { content: self.deltas[i] },
                finish_reason: i === self.deltas.length - 1 ? 'stop' : null,
              },
            ],
          } as CanonicalChatChunk;
        }
        yield {
          id: 's1',
          object: 'chat.completion.chunk',
          created: 1,
          model: req.model,
          choices: [],
          usage: {
            prompt_tokens: 9,
            completion_tokens: 4,
            total_tokens: 13,
            cache_read_tokens: 0,
            cache_write_tokens: 0,
          },
        } as CanonicalChatChunk;
      } finally {
        self.close();
      }
    })();
  }
}

describe('streaming services yield events (no HTTP)', () => {
  const config = AppConfig.load(ENV_PROVIDERS, { OPENAI_API_KEY: 'x' });
  const tokens = new TokenCounter('o200k_base');
  const caller: Caller = { teamId: 't', apiKeyId: 'k', keyPrefix: 'sk-' } as Caller;
  let provider: StreamingProvider;
  let billing: FakeBilling;
  let chat: ChatService;

  beforeEach(() => {
    provider = new StreamingProvider();
    billing = new FakeBilling();
    const registry = {
      chat: () => provider,
      chatDeployments: () => [{ id: 'default', weight: 1, provider }],
      maxRetries: () => 0,
      isAvailable: () => true,
      countsTokensExactly: () => true,
      needsInlineImages: () => false,
    } as unknown as ProviderRegistry;
    const catalog = new ModelCatalogService(config, registry);
    const router = new UpstreamRouter(
      registry,
      {
        cooldownMs: 0,
        cooling: async () => new Set(),
        coolDown: async () => undefined,
      } as unknown as DeploymentCooldowns,
      new Sleeper(),
      new ResilienceEvents(),
      config,
    );
    chat = new ChatService(
      catalog,
      registry,
      billing as unknown as BillingService,
      new PricingService(),
      {} as ImageInliner,
      new TokenizerService(tokens, new TokenCounter('cl100k_base')),
      router,
    );
  });

  const noContext = { assemble: async () => null } as unknown as ChatContextService;
  const noFiles = { resolve: async () => ({ images: [], pdfs: [] }) } as unknown as FileUrlResolver;
  const completions = () => new CompletionsService(chat, noContext, noFiles);
  const completionDto = (extra: Partial<ChatCompletionRequestDto> = {}) =>
    ({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'hi' }],
      max_tokens: 50,
      stream: true,
      ...extra,
    }) as ChatCompletionRequestDto;

  /** Drains an event stream, noting the headers as they stood when each event arrived. */
  async function drain<E extends SseEvent>(stream: {
    headers: Readonly<Record<string, string>>;
    events: AsyncIterable<E>;
  }): Promise<{ events: E[]; headersAtFirst: Record<string, string> | null }> {
    const events: E[] = [];
    let headersAtFirst: Record<string, string> | null = null;
    for await (const e of stream.events) {
      headersAtFirst ??= { ...stream.headers };
      events.push(e);
    }
    return { events, headersAtFirst };
  }

  it('/v1/chat/completions: chunks, the usage chunk with cost, [DONE]; x-gateway-model before the first event; one charge of tokens × price', async () => {
    const svc = completions();
    const prep = await svc.prepare(caller, completionDto(), 'r1');
    const { events, headersAtFirst } = await drain(svc.stream(prep, new AbortController().signal, true));
    expect(headersAtFirst).toEqual({ 'x-gateway-model': 'gpt-4o-mini' });
    expect(events.every((e) => !('event' in e))).toBe(true);
    const data = events.map((e) => e.data);
    expect(data[data.length - 1]).toBe('[DONE]');
    const chunks = data.slice(0, -2) as { model: string; usage: null; choices: { delta: { content: string } }[] }[];
    expect(chunks.map((c) => c.choices[0].delta.content).join('')).toBe('Hello there!');
    expect(chunks.every((c) => c.model === 'gpt-4o-mini' && c.usage === null)).toBe(true);
    const usage = data[data.length - 2] as {
      choices: unknown[];
      usage: { prompt_tokens: number; completion_tokens: number };
      cost: { total_cost_rub: number };
    };
    expect(usage.choices).toEqual([]);
    expect(usage.usage).toMatchObject({ prompt_tokens: 9, completion_tokens: 4 });
    const cost = 9 * PRICE.input + 4 * PRICE.output;
    expect(usage.cost.total_cost_rub).toBeCloseTo(cost / 1e6, 9);
    expect(billing.charges).toEqual([{ costMicro: cost, completionTokens: 4, estimated: false }]);
  });

  it('a consumer that stops after the first event aborts the upstream; the delivered tokens are billed before the iteration ends', async () => {
    const svc = completions();
    const prep = await svc.prepare(caller, completionDto(), 'r1');
    const seen: string[] = [];
    for await (const e of svc.stream(prep, new AbortController().signal, false).events) {
      seen.push((e.data as { choices: { delta: { content: string } }[] }).choices[0].delta.content);
      break;
    }
    expect(seen).toEqual(['Hel']);
    expect(provider.signal?.aborted).toBe(true);
    expect(provider.closed).toBe(true);
    // already settled when the loop is left: the gateway's count of what was delivered
    expect(billing.charges).toEqual([
      { costMicro: expect.any(Number), completionTokens: tokens.count('Hel'), estimated: true },
    ]);
  });

  it('the caller aborting (client disconnect) ends the stream without the closing events; delivered tokens billed', async () => {
    const svc = completions();
    const prep = await svc.prepare(caller, completionDto(), 'r1');
    const ac = new AbortController();
    const data: unknown[] = [];
    for await (const e of svc.stream(prep, ac.signal, true).events) {
      data.push(e.data);
      if (data.length === 2) ac.abort();
    }
    expect(data).toHaveLength(2);
    expect(data).not.toContain('[DONE]');
    expect(provider.signal?.aborted).toBe(true);
    expect(billing.charges).toEqual([
      { costMicro: expect.any(Number), completionTokens: tokens.count('Hello'), estimated: true },
    ]);
  });

  it('a failure mid-stream becomes one in-band error event (no [DONE]); a failure before the first event is thrown', async () => {
    provider.failAfter = 2;
    const svc = completions();
    const { events } = await drain(
      svc.stream(await svc.prepare(caller, completionDto(), 'r1'), new AbortController().signal, true),
    );
    const last = events[events.length - 1].data as { error: { type: string } };
    expect(events).toHaveLength(3);
    expect(last.error).toMatchObject({ type: 'upstream_error' });
    expect(billing.charges).toEqual([
      { costMicro: expect.any(Number), completionTokens: tokens.count('Hello'), estimated: true },
    ]);

    provider.failAfter = 0;
    billing.charges = [];
    const early = svc.stream(await svc.prepare(caller, completionDto(), 'r2'), new AbortController().signal, true);
    await expect(drain(early)).rejects.toBeInstanceOf(ApiError);
    expect(early.headers).toEqual({});
    expect(billing.charges).toEqual([]);
  });

  it('/api/v1/chat: named delta events then done with usage and cost; an error after the first event is `event: error`', async () => {
    const files = { resolve: async () => ({ images: [], pdfs: [] }) } as unknown as FileUrlResolver;
    const rest = new RestChatService(chat, noContext, files);
    const body = { model: 'gpt-4o-mini', prompt: 'hi', user_id: 'u', stream: true } as ChatRequestDto;
    const { events, headersAtFirst } = await drain(await rest.stream(caller, body, 'r1', new AbortController().signal));
    expect(headersAtFirst).toEqual({ 'x-gateway-model': 'gpt-4o-mini' });
    expect(events.map((e) => e.event)).toEqual(['delta', 'delta', 'delta', 'delta', 'done']);
    const done = events[4].data as {
      response: { text: string };
      usage: { completion_tokens: number };
      model: { model: string };
    };
    expect(done).toMatchObject({
      response: { text: 'Hello there!' },
      usage: { completion_tokens: 4 },
      model: { model: 'gpt-4o-mini' },
    });

    provider.failAfter = 1;
    const failed = await drain(await rest.stream(caller, body, 'r2', new AbortController().signal));
    expect(failed.events.map((e) => e.event)).toEqual(['delta', 'error']);
    expect(failed.events[1].data).toMatchObject({ error: { type: 'upstream_error' } });
  });

  it('/v1/responses: the Responses event sequence with increasing sequence numbers, the served model in every response object', async () => {
    const responses = new ResponsesService(
      chat,
      {
        find: async () => null,
        purgeExpired: async () => {},
        insert: async () => {},
      } as unknown as ResponsesRepository,
      new Clock(),
      {} as ChatContextService,
      new McpToolLoop(chat, config),
    );
    const prep = await responses.prepare(
      caller,
      { model: 'gpt-4o-mini', input: 'hi', stream: true } as ResponseCreateRequestDto,
      'r1',
    );
    const { events, headersAtFirst } = await drain(responses.stream(prep, new AbortController().signal));
    expect(headersAtFirst).toEqual({ 'x-gateway-model': 'gpt-4o-mini' });
    const types = events.map((e) => e.event);
    expect(types.slice(0, 4)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
    ]);
    expect(types.filter((t) => t === 'response.output_text.delta')).toHaveLength(4);
    expect(types[types.length - 1]).toBe('response.completed');
    expect(events.map((e) => e.data.sequence_number)).toEqual(events.map((_, i) => i));
    expect(events.every((e) => e.data.type === e.event)).toBe(true);
    const completed = events[events.length - 1].data.response as {
      model: string;
      usage: { output_tokens: number };
      cost: { total_cost_rub: number };
    };
    expect(completed).toMatchObject({ model: 'gpt-4o-mini', usage: { output_tokens: 4 } });
    expect(completed.cost.total_cost_rub).toBeCloseTo((9 * PRICE.input + 4 * PRICE.output) / 1e6, 9);

    provider.failAfter = 2;
    const failed = await drain(
      responses.stream(
        await responses.prepare(
          caller,
          { model: 'gpt-4o-mini', input: 'hi', stream: true } as ResponseCreateRequestDto,
          'r2',
        ),
        new AbortController().signal,
      ),
    );
    expect(failed.events.slice(-2).map((e) => e.event)).toEqual(['error', 'response.failed']);
  });
});

describe('pullFrom (push producer → pull iterator)', () => {
  it('a push resolves only when the consumer asks for the next item; the producer result is the return value', async () => {
    const log: string[] = [];
    const it = pullFrom<number, string>(
      async (push) => {
        for (const n of [1, 2, 3]) {
          log.push(`push ${n}`);
          await push(n);
          log.push(`pushed ${n}`);
        }
        return 'done';
      },
      () => log.push('cancel'),
    );
    expect(await it.next()).toEqual({ value: 1, done: false });
    await new Promise((r) => setTimeout(r, 5));
    expect(log).toEqual(['push 1']);
    expect(await it.next()).toEqual({ value: 2, done: false });
    expect(await it.next()).toEqual({ value: 3, done: false });
    expect(await it.next()).toEqual({ value: 'done', done: true });
    expect(log).not.toContain('cancel');
  });

  it('stopping early cancels, releases the pending push, and waits for the producer to settle', async () => {
    let settled = false;
    const it = pullFrom<number, void>(
      async (push) => {
        await push(1);
        await push(2); // resolved at once after the cancel
        await new Promise((r) => setTimeout(r, 10));
        settled = true;
      },
      () => undefined,
    );
    await it.next();
    await it.return(undefined);
    expect(settled).toBe(true);
  });

  it('a producer error is thrown to the consumer after the items pushed before it', async () => {
    const it = pullFrom<number, void>(
      async (push) => {
        await push(1);
        throw new Error('boom');
      },
      () => undefined,
    );
    expect(await it.next()).toEqual({ value: 1, done: false });
    await expect(it.next()).rejects.toThrow('boom');
  });
});
