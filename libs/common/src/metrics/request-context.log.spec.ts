import { RequestContext } from './request-context';

describe('RequestContext: what the request log reads', () => {
  it('attempts and the fallback path (each model once, in order), the provider of the last attempt', () => {
    const ctx = new RequestContext('r1', 0);
    ctx.addAttempt('gpt-4o', 'openai');
    ctx.addAttempt('gpt-4o', 'openai');
    ctx.addAttempt('claude-sonnet-4', 'anthropic');
    expect(ctx.attempts).toBe(3);
    expect(ctx.fallbackPath).toEqual(['gpt-4o', 'claude-sonnet-4']);
    expect(ctx.provider).toBe('anthropic');
  });

  it('cache and reasoning tokens add up from the charges’ breakdowns', () => {
    const ctx = new RequestContext('r1', 0);
    ctx.addCharge('m', 10, 5, 100, { cache_read_tokens: 4, cache_write_tokens: 2, reasoning_tokens: 3 });
    ctx.addCharge('m', 1, 1, 1, { cache_read_tokens: 'x' });
    ctx.addCharge('m', 1, 1, 1);
    expect([ctx.cacheReadTokens, ctx.cacheWriteTokens, ctx.reasoningTokens]).toEqual([4, 2, 3]);
    expect([ctx.promptTokens, ctx.completionTokens, ctx.costMicro]).toEqual([12, 7, 102]);
  });
});
