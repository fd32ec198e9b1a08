import type { ModelPricing } from '@app/providers';
import { costToRub } from '@app/chat/chat-cost';
import { chatTokensCharge, chatTokensHoldMicro } from './chat-tokens';

const claude: ModelPricing = {
  input_rub_per_1m: 300,
  output_rub_per_1m: 1500,
  cache_read_rub_per_1m: 30,
  cache_write_rub_per_1m: 375,
  image_rub: 0.1,
};
const mini: ModelPricing = {
  input_rub_per_1m: 15,
  output_rub_per_1m: 60,
  cache_read_rub_per_1m: null,
  cache_write_rub_per_1m: null,
  image_rub: null,
};

describe('chat cost', () => {
  it('1-hour cache writes at their own price, the rest of the writes at the 5-minute price', () => {
    // 100 uncached + 300 read + 200 written (150 of them for 1 h); 10 output
    const usage = {
      prompt_tokens: 600,
      completion_tokens: 10,
      total_tokens: 610,
      cache_read_tokens: 300,
      cache_write_tokens: 200,
      cache_write_1h_tokens: 150,
    };
    const c = chatTokensCharge(usage, { ...claude, cache_write_1h_rub_per_1m: 600 }, 0);
    // 30 000 + 9 000 + 50×375 = 18 750 + 150×600 = 90 000 + 15 000 (µRUB)
    expect(c).toMatchObject({ inputMicro: 30_000, outputMicro: 15_000, cacheMicro: 117_750, totalMicro: 162_750 });
    // without a 1-hour price every write is priced at the 5-minute one
    const flat = chatTokensCharge(usage, claude, 0);
    expect(flat.cacheMicro).toBe(9_000 + 75_000);
    // the hold takes the dearest input-side price, the 1-hour write price included
    expect(chatTokensHoldMicro(1000, 0, { ...claude, cache_write_1h_rub_per_1m: 600 }, 0)).toBe(600_000);
  });

  it('charges the uncached prompt at the input price and cache tokens at their own prices', () => {
    // prompt 1000 = 400 uncached + 500 cache read + 100 cache write; 200 completion
    const c = chatTokensCharge(
      {
        prompt_tokens: 1000,
        completion_tokens: 200,
        total_tokens: 1200,
        cache_read_tokens: 500,
        cache_write_tokens: 100,
      },
      claude,
      0,
    );
    expect(c.inputMicro).toBe(400 * 300); // 0.12 RUB
    expect(c.outputMicro).toBe(200 * 1500); // 0.3 RUB
    expect(c.cacheMicro).toBe(500 * 30 + 100 * 375); // 0.0525 RUB
    expect(c.imageMicro).toBeNull();
    expect(c.totalMicro).toBe(120_000 + 300_000 + 52_500);
    expect(costToRub(c, c.totalMicro)).toEqual({
      input_cost_rub: 0.12,
      output_cost_rub: 0.3,
      image_cost_rub: null,
      cache_cost_rub: 0.0525,
      total_cost_rub: 0.4725,
      currency: 'RUB',
    });
  });

  it('rounds the total once from the exact sum', () => {
    // 1 token at 15 RUB/1M = 15 µRUB; 1 at 60 = 60 µRUB: exact; use fractional prices to see rounding
    const p: ModelPricing = {
      input_rub_per_1m: 0.4,
      output_rub_per_1m: 0.4,
      cache_read_rub_per_1m: null,
      cache_write_rub_per_1m: null,
      image_rub: null,
    };
    const c = chatTokensCharge(
      { prompt_tokens: 2, completion_tokens: 2, total_tokens: 4, cache_read_tokens: 0, cache_write_tokens: 0 },
      p,
      0,
    );
    expect(c.inputMicro).toBe(1); // 0.8 → 1
    expect(c.outputMicro).toBe(1);
    expect(c.totalMicro).toBe(2); // 1.6 → 2
    expect(c.cacheMicro).toBeNull();
  });

  it('adds a per-image fee when images were sent', () => {
    const c = chatTokensCharge(
      { prompt_tokens: 10, completion_tokens: 0, total_tokens: 10, cache_read_tokens: 0, cache_write_tokens: 0 },
      claude,
      3,
    );
    expect(c.imageMicro).toBe(300_000);
    expect(c.totalMicro).toBe(3000 + 300_000);
  });

  it('worst case uses the dearest input-side price, the output cap and images', () => {
    expect(chatTokensHoldMicro(1000, 100, claude, 1)).toBe(1000 * 375 + 100 * 1500 + 100_000);
    expect(chatTokensHoldMicro(1000, 100, mini, 0)).toBe(1000 * 15 + 100 * 60);
  });
});
