import type { ModelPricing } from '@app/providers';
import { loadCatalog } from '@app/providers';
import { costToRub } from '@app/chat/chat-cost';
import { chatTokensCharge, chatTokensHoldMicro } from './chat-tokens';
import { embeddingsChargeMicro, embeddingsHoldMicro } from './embeddings';
import { imageCharge, imageHoldMicro } from './images';

/** A catalog price's flat fee per call (pricing.request_rub), in every price rule. */
const fee: ModelPricing = {
  input_rub_per_1m: 15,
  output_rub_per_1m: 60,
  cache_read_rub_per_1m: null,
  cache_write_rub_per_1m: null,
  image_rub: null,
  request_rub: 0.5,
};
const usage = {
  prompt_tokens: 1000,
  completion_tokens: 100,
  total_tokens: 1100,
  cache_read_tokens: 0,
  cache_write_tokens: 0,
};

describe('a fee per request', () => {
  it('chat: once per call, in the hold and the charge, shown in the breakdown', () => {
    const cost = chatTokensCharge(usage, fee, 0);
    // 1000 × 15 + 100 × 60 µRUB + 0.5 RUB
    expect(cost.totalMicro).toBe(15_000 + 6_000 + 500_000);
    expect(cost.requestMicro).toBe(500_000);
    expect(costToRub(cost, cost.totalMicro)).toMatchObject({ request_cost_rub: 0.5, total_cost_rub: 0.521 });
    expect(chatTokensHoldMicro(1000, 100, fee, 0)).toBe(521_000);
    // without one: nothing added and no field
    const none = chatTokensCharge(usage, { ...fee, request_rub: null }, 0);
    expect(none.totalMicro).toBe(21_000);
    expect(none.requestMicro).toBeUndefined();
    expect(costToRub(none, none.totalMicro)).not.toHaveProperty('request_cost_rub');
  });

  it('embeddings (and rerank, which uses the same input-only rule): once per call', () => {
    expect(embeddingsChargeMicro(fee, 1000)).toBe(15_000 + 500_000);
    // the hold pads the count (32 tokens at 15 µRUB) and adds the fee
    expect(embeddingsHoldMicro(fee, 0)).toBe(32 * 15 + 500_000);
  });

  it('images: once per request, whatever n', () => {
    const dalle = loadCatalog().find((m) => m.key === 'dall-e-3')!;
    const priced = { ...dalle, pricing: { ...dalle.pricing, request_rub: 1 } };
    const png = [
      { b64: 'AA==', mime: 'image/png' },
      { b64: 'AA==', mime: 'image/png' },
    ];
    const cost = imageCharge(priced, {
      images: png,
      usage: null,
      size: '1024x1024',
      quality: 'standard',
      output_format: 'png',
    });
    expect(
      cost.totalMicro -
        imageCharge(dalle, { images: png, usage: null, size: '1024x1024', quality: 'standard', output_format: 'png' })
          .totalMicro,
    ).toBe(1_000_000);
    const req = { n: 2, size: '1024x1024', quality: 'standard', prompt: 'a cat' };
    expect(imageHoldMicro(priced, req) - imageHoldMicro(dalle, req)).toBe(1_000_000);
  });
});
