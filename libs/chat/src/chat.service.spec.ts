import { AppConfig } from '@app/config';
import { ApiError } from '@app/common';
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
import { Sleeper } from '@app/common';
import { ChatService } from './chat.service';
import { ImageInliner } from './image-inliner';
import { ENV_PROVIDERS } from '@app/providers';

/** The money path as an in-memory fake: records holds and charges, same contract as BillingService.meter. */
class FakeBilling {
  balance = 10_000_000;
  holds: number[] = [];
  charges: { costMicro: number; promptTokens: number; completionTokens: number }[] = [];
  async meter<T>(spec: MeterSpec<T>) {
    if (spec.holdMicro > this.balance) throw ApiError.insufficientQuota('no');
    this.holds.push(spec.holdMicro);
    let result: T;
    try {
      result = await spec.run(spec.holdMicro);
    } catch (err) {
      const partial = spec.chargeOnFailure?.(err) ?? null;
      if (partial)
        this.charges.push({
          costMicro: partial.costMicro,
          promptTokens: partial.details.promptTokens,
          completionTokens: partial.details.completionTokens,
        });
      throw err;
    }
    const c = spec.charge(result);
    if (c)
      this.charges.push({
        costMicro: c.costMicro,
        promptTokens: c.details.promptTokens,
        completionTokens: c.details.completionTokens,
      });
    return { result, charged: c ? { chargedMicro: c.costMicro, balanceAfterMicro: 0, ledgerEntryId: 1 } : null };
  }
}

/** A scripted provider: a fixed answer, or a stream of deltas that may break after some of them. */
class FakeProvider implements ChatProvider {
  deltas = ['Hel', 'lo', '!'];
  failAfter: number | null = null;
  lastRequest: CanonicalChatRequest | null = null;
  async complete(req: CanonicalChatRequest): Promise<CanonicalChatResponse> {
    this.lastRequest = req;
    return {
      id: 'c1',
      object: 'chat.completion',
      created: 1,
      model: req.model,
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hello!' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15, cache_read_tokens: 0, cache_write_tokens: 0 },
    };
  }
  async stream(req: CanonicalChatRequest): Promise<AsyncIterable<CanonicalChatChunk>> {
    this.lastRequest = req;
    const { deltas, failAfter } = this;
    return (async function* () {
      for (let i = 0; i < deltas.length; i++) {
        if (failAfter !== null && i === failAfter) throw new ProviderError('upstream', 'connection reset mid-stream');
        yield {
          id: 's1',
          object: 'chat.completion.chunk',
          created: 1,
          model: req.model,
          choices: [{ index: 0, delta: { content: deltas[i] }, finish_reason: null }],
        } as CanonicalChatChunk;
      }
    })();
  }
}

describe('ChatService (unit: fake provider, in-memory money path)', () => {
  const config = AppConfig.load(ENV_PROVIDERS, { ANTHROPIC_API_KEY: 'x', OPENAI_API_KEY: 'x' });
  const tokens = new TokenCounter('o200k_base');
  let provider: FakeProvider;
  let billing: FakeBilling;
  let chat: ChatService;

  beforeEach(() => {
    provider = new FakeProvider();
    billing = new FakeBilling();
    const registry = {
      chat: () => provider,
      chatDeployments: () => [{ id: 'default', weight: 1, provider }],
      maxRetries: () => 0,
      isAvailable: () => true,
      countsTokensExactly: (m: { provider: string }) => m.provider === 'openai',
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

  const input = (modelKey: string, content: string, maxTokens = 100) => ({
    caller: { teamId: 't', apiKeyId: 'k', keyPrefix: 'sk-' },
    requestId: 'r1',
    endpoint: '/v1/chat/completions',
    modelKey,
    messages: [{ role: 'user' as const, content }],
    params: { max_tokens: maxTokens },
    imageParam: 'messages',
  });

  it('prepare: the hold covers the padded prompt and max_tokens at catalog prices; nothing is held yet', async () => {
    const prep = await chat.prepare(input('gpt-4o-mini', 'hello there'));
    expect(billing.holds).toEqual([]);
    const prompt = prep.promptTokens;
    // gpt-4o-mini: 15 / 60 RUB per 1M → µRUB per token; exact tokenizer: +10 % + 32
    expect(prep.holdMicro).toBe(Math.round((Math.ceil(prompt * 1.1) + 32) * 15 + 100 * 60));
  });

  it('a non-OpenAI tokenizer pads Cyrillic prompts by character', async () => {
    const ru = 'Привет, как дела? '.repeat(50);
    const prep = await chat.prepare(input('claude-sonnet-4', ru));
    const nonAscii = [...ru].filter((c) => c.codePointAt(0)! > 0x7f).length;
    expect(prep.holdMicro).toBeGreaterThanOrEqual(nonAscii * 300);
  });

  it('complete: charges the provider-reported usage once', async () => {
    const out = await chat.complete(await chat.prepare(input('gpt-4o-mini', 'hi')), new AbortController().signal);
    expect(out.usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 3 });
    expect(billing.charges).toEqual([{ costMicro: 12 * 15 + 3 * 60, promptTokens: 12, completionTokens: 3 }]);
    expect(out.chargedMicro).toBe(12 * 15 + 3 * 60);
  });

  it('context beyond the window → 400 before anything is held', async () => {
    await expect(chat.prepare(input('local', 'word '.repeat(40_000)))).rejects.toMatchObject({
      status: 400,
      code: 'context_length_exceeded',
    });
    expect(billing.holds).toEqual([]);
  });

  it('stream cut after delivered deltas: those tokens are charged and the error reaches the caller', async () => {
    provider.failAfter = 2;
    const seen: string[] = [];
    const prep = await chat.prepare(input('gpt-4o-mini', 'hi'));
    await expect(
      chat.stream(prep, new AbortController().signal, async (c) => void seen.push(c.choices[0].delta.content ?? '')),
    ).rejects.toMatchObject({ status: 502 });
    expect(seen.join('')).toBe('Hello');
    expect(billing.charges).toHaveLength(1);
    expect(billing.charges[0].completionTokens).toBe(tokens.count('Hello'));
  });

  it('stream failing before any delta charges nothing', async () => {
    provider.failAfter = 0;
    const prep = await chat.prepare(input('gpt-4o-mini', 'hi'));
    await expect(chat.stream(prep, new AbortController().signal, async () => undefined)).rejects.toBeInstanceOf(
      ApiError,
    );
    expect(billing.charges).toEqual([]);
  });
});
