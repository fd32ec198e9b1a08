import { loadCatalog, parseModelEntry } from '@app/providers';
import { resolveImageRequest } from '@app/images/image-options';
import { imageCharge, imageHoldMicro } from './images';

const catalog = new Map(loadCatalog().map((m) => [m.key, m]));
const model = (key: string) => catalog.get(key)!;
const png = (n: number) => Array.from({ length: n }, () => ({ b64: 'AA==', mime: 'image/png' }));

describe('image pricing', () => {
  it('per-image models: n × table price of the size and quality used', () => {
    const cost = imageCharge(model('dall-e-3'), {
      images: png(1),
      usage: null,
      size: '1024x1792',
      quality: 'hd',
      output_format: 'png',
    });
    expect(cost).toEqual({ imageMicro: 12_000_000, inputMicro: 0, totalMicro: 12_000_000, basis: 'per_image' });
    expect(
      imageCharge(model('local-image'), {
        images: png(3),
        usage: null,
        size: '256x256',
        quality: 'medium',
        output_format: 'png',
      }).totalMicro,
    ).toBe(60_000);
  });

  it('token-priced models with usage: text in × input price + image in × image-input price + out × output price', () => {
    const cost = imageCharge(model('gpt-image-1'), {
      images: png(2),
      usage: { text_input_tokens: 37, image_input_tokens: 194, output_tokens: 2112 },
      size: '1024x1024',
      quality: 'medium',
      output_format: 'png',
    });
    // 37 × 500 + 194 × 1000 µRUB (RUB per 1M tokens = µRUB per token); 2112 × 4000
    expect(cost).toEqual({
      inputMicro: 37 * 500 + 194 * 1000,
      imageMicro: 2112 * 4000,
      totalMicro: 37 * 500 + 194 * 1000 + 2112 * 4000,
      basis: 'tokens',
    });
  });

  it('token-priced models without usage fall back to the per-image table (dearest candidate for auto)', () => {
    expect(
      imageCharge(model('gpt-image-1'), {
        images: png(1),
        usage: null,
        size: '1024x1536',
        quality: 'low',
        output_format: 'png',
      }).totalMicro,
    ).toBe(1_632_000);
    expect(
      imageCharge(model('gpt-image-1'), {
        images: png(1),
        usage: null,
        size: 'auto',
        quality: 'auto',
        output_format: 'png',
      }).totalMicro,
    ).toBe(24_960_000);
  });

  it('the reservation covers the dearest outcome: n × max price + prompt chars at the input price per call', () => {
    const m = model('gpt-image-1');
    const req = resolveImageRequest(m, { prompt: 'x'.repeat(100), n: 2 });
    expect(imageHoldMicro(m, req)).toBe(2 * 24_960_000 + 100 * 500);
    const g = model('gemini-2.5-flash-image');
    expect(imageHoldMicro(g, resolveImageRequest(g, { prompt: 'abcd', n: 3 }))).toBe(3 * 3_870_000 + 3 * 4 * 30);
    // a reservation is never below the exact charge of the same request without usage
    const d = model('dall-e-3');
    const dr = resolveImageRequest(d, { prompt: 'p', size: '1792x1024', quality: 'hd' });
    expect(imageHoldMicro(d, dr)).toBe(
      imageCharge(d, { images: png(1), usage: null, size: '1792x1024', quality: 'hd', output_format: 'png' })
        .totalMicro,
    );
  });

  it('the catalog keeps the two meanings apart: image models may not set pricing.image_rub', () => {
    const raw = {
      key: 'x',
      provider: 'openai',
      upstream_model: 'x',
      kind: 'image',
      context_window: 10,
      pricing: { input_rub_per_1m: 1, image_rub: 4 },
      image: { sizes: ['1024x1024'], qualities: ['standard'], per_image_rub: { '1024x1024': { standard: 4 } } },
    };
    expect(() => parseModelEntry(raw, 't')).toThrow(/pricing.image_rub/);
    expect(() =>
      parseModelEntry(
        { ...raw, pricing: { input_rub_per_1m: 1, image_rub: null }, image: { ...raw.image, per_image_rub: {} } },
        't',
      ),
    ).toThrow(/no row for size 1024x1024/);
    expect(
      parseModelEntry({ ...raw, pricing: { input_rub_per_1m: 1, image_rub: null } }, 't').image?.per_image_rub,
    ).toEqual({ '1024x1024': { standard: 4 } });
  });
});
