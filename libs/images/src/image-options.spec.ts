import { loadCatalog } from '@app/providers';
import { resolveImageRequest } from './image-options';

const catalog = new Map(loadCatalog().map((m) => [m.key, m]));
const model = (key: string) => catalog.get(key)!;

describe('resolveImageRequest', () => {
  it('fills the model defaults and maps to the upstream model', () => {
    expect(resolveImageRequest(model('dall-e-3'), { prompt: 'p' })).toEqual({
      model: 'dall-e-3',
      prompt: 'p',
      n: 1,
      size: '1024x1024',
      quality: 'standard',
      output_format: 'png',
    });
    expect(
      resolveImageRequest(model('gpt-image-1'), {
        prompt: 'p',
        output_format: 'webp',
        output_compression: 50,
        background: 'transparent',
      }),
    ).toMatchObject({
      size: 'auto',
      quality: 'auto',
      output_format: 'webp',
      output_compression: 50,
      background: 'transparent',
    });
  });

  it.each([
    ['dall-e-3', { prompt: 'p', n: 2 }, 'n'],
    ['dall-e-3', { prompt: 'p', size: '1024x1536' }, 'size'],
    ['dall-e-3', { prompt: 'p', quality: 'medium' }, 'quality'],
    ['dall-e-3', { prompt: 'p'.repeat(4001) }, 'prompt'],
    ['gpt-image-1', { prompt: 'p', style: 'vivid' as const }, 'style'],
    ['gpt-image-1', { prompt: 'p', output_format: 'jpeg' as const, background: 'transparent' as const }, 'background'],
    ['gpt-image-1', { prompt: 'p', output_compression: 10 }, 'output_compression'],
    ['local-image', { prompt: 'p', output_format: 'webp' as const }, 'output_format'],
    ['local-image', { prompt: ' ' }, 'prompt'],
  ])('%s → 400 naming the parameter (case %#)', (key, fields, param) => {
    try {
      resolveImageRequest(model(key), fields);
      throw new Error('expected a 400');
    } catch (err) {
      expect((err as { status?: number }).status).toBe(400);
      expect((err as { param?: string }).param).toBe(param);
    }
  });
});
