import { describe, expect, it } from 'vitest';
import { bodyOf, formOf, parseAmount, validate, type AdminModel } from './catalog-form';

const chat = {
  key: 'gpt-4o-mini',
  provider: 'openai',
  kind: 'chat',
  supports_images: true,
  supports_tools: true,
  context_window: 128000,
  enabled: true,
  source: 'database',
  currency: 'RUB',
  prices: {
    input_rub_per_1m: 30,
    output_rub_per_1m: 60,
    cache_read_rub_per_1m: 7.5,
    cache_write_rub_per_1m: null,
    cache_write_1h_rub_per_1m: null,
    image_rub: 0.1,
    request_rub: null,
  },
  image: null,
  rub_prices: null,
  rub_image: null,
  fx: null,
  aliases: ['mini'],
  fallbacks: [],
  deployments: null,
  overridden_fields: ['prices.input_per_1m', 'aliases'],
  available: true,
} as unknown as AdminModel;

const image = {
  ...chat,
  key: 'dall-e-3',
  kind: 'image',
  source: 'builtin',
  image: { per_image: { '1024x1024': { standard: 4, hd: 8 } }, image_input_per_1m: 0 },
  aliases: [],
  overridden_fields: [],
} as unknown as AdminModel;

describe('the catalog editor form', () => {
  it('reads amounts with a decimal point or comma; empty is none, text is not a number', () => {
    expect(parseAmount('0,5')).toBe(0.5);
    expect(parseAmount(' 12.25 ')).toBe(12.25);
    expect(parseAmount('')).toBeNull();
    expect(parseAmount('ten')).toBeNaN();
  });

  it('sends the fields the override sets and the ones changed, nothing else', () => {
    const f = formOf(chat);
    expect(bodyOf(chat, f)).toEqual({ enabled: true, prices: { input_per_1m: 30 }, aliases: ['mini'] });
    f.prices.request = '0,5';
    f.prices.cache_read_per_1m = '';
    expect(bodyOf(chat, { ...f, enabled: false })).toEqual({
      enabled: false,
      prices: { input_per_1m: 30, cache_read_per_1m: null, request: 0.5 },
      aliases: ['mini'],
    });
  });

  it('a change of currency sends every price, read in the new currency', () => {
    const body = bodyOf(chat, { ...formOf(chat), currency: 'USD' });
    expect(body.currency).toBe('USD');
    expect(Object.keys(body.prices ?? {}).sort()).toEqual([
      'cache_read_per_1m',
      'cache_write_1h_per_1m',
      'cache_write_per_1m',
      'image',
      'input_per_1m',
      'output_per_1m',
      'request',
    ]);
  });

  it('checks as the server does: no negative price, input and output required while enabled', () => {
    const f = formOf(chat);
    f.prices.input_per_1m = '-1';
    f.prices.output_per_1m = '';
    expect(validate(chat, f)).toEqual({ 'prices.input_per_1m': 'negative', 'prices.output_per_1m': 'required' });
    expect(validate(chat, { ...f, enabled: false })).toEqual({ 'prices.input_per_1m': 'negative' });
    const d = {
      ...formOf(chat),
      deployments: [{ id: 'a', base_url: '', base_url_env: 'HOME', api_key_env: 'DATABASE_URL', weight: '0' }],
    };
    expect(validate(chat, d)).toEqual({
      'deployments[0].base_url_env': 'env_base_url',
      'deployments[0].api_key_env': 'env_api_key',
      'deployments[0].weight': 'weight',
    });
  });

  it('image models: every cell of the per-image table is required; a changed table is sent whole', () => {
    const f = formOf(image);
    f.perImage['1024x1024'].hd = '';
    expect(validate(image, f)).toEqual({ 'per_image.1024x1024.hd': 'required' });
    f.perImage['1024x1024'].hd = '9';
    expect(bodyOf(image, f)).toEqual({ enabled: true, per_image: { '1024x1024': { standard: 4, hd: 9 } } });
  });
});
