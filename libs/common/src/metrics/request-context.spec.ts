import { RequestContext, RequestContexts } from './request-context';

describe('RequestContexts', () => {
  it('finds the live context of a request id and forgets it when released', () => {
    const reg = new RequestContexts();
    const ctx = new RequestContext('req-1', 0);
    reg.register(ctx);
    expect(reg.get('req-1')).toBe(ctx);
    reg.unregister(ctx);
    expect(reg.get('req-1')).toBeUndefined();
    expect(reg.size).toBe(0);
  });

  it('attributes nothing while two live requests share an id, and frees the slot when both ended', () => {
    const reg = new RequestContexts();
    const a = new RequestContext('dup', 0);
    const b = new RequestContext('dup', 0);
    reg.register(a);
    reg.register(b);
    expect(reg.get('dup')).toBeUndefined();
    reg.unregister(a);
    // b is still live: a third request with the same id must not become attributable either
    const c = new RequestContext('dup', 0);
    reg.register(c);
    expect(reg.get('dup')).toBeUndefined();
    reg.unregister(b);
    reg.unregister(c);
    expect(reg.size).toBe(0);
    const d = new RequestContext('dup', 0);
    reg.register(d);
    expect(reg.get('dup')).toBe(d);
  });

  it('adds up charges and upstream time; the model is the last one charged', () => {
    const ctx = new RequestContext('r', 0);
    ctx.addUpstream(12.5);
    ctx.addUpstream(2.5);
    ctx.addCharge('text-embedding-3-small', 10, 0, 2000);
    ctx.addCharge('gpt-4o-mini', 30, 7, 5000);
    expect(ctx).toMatchObject({
      upstreamMs: 15,
      upstreamCalls: 2,
      model: 'gpt-4o-mini',
      promptTokens: 40,
      completionTokens: 7,
      costMicro: 7000,
    });
  });
});
