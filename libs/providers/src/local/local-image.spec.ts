import { PNG } from 'pngjs';
import { generateLocalImages } from './local-image';

const base = {
  model: 'local-image',
  prompt: 'a red fox in snow',
  n: 2,
  size: '256x256',
  quality: 'low',
  output_format: 'png' as const,
};

describe('local-image generator', () => {
  it('returns n valid PNGs of the requested size', () => {
    const out = generateLocalImages(base);
    expect(out.images).toHaveLength(2);
    for (const img of out.images) {
      const png = PNG.sync.read(Buffer.from(img.b64, 'base64'));
      expect([png.width, png.height]).toEqual([256, 256]);
      expect(img.mime).toBe('image/png');
    }
    expect(out.usage).toBeNull();
    expect(out.size).toBe('256x256');
  });

  it('is deterministic per prompt/size/quality/index and differs across them', () => {
    const a = generateLocalImages(base);
    const b = generateLocalImages(base);
    expect(a.images[0].b64).toBe(b.images[0].b64);
    expect(a.images[0].b64).not.toBe(a.images[1].b64);
    const other = generateLocalImages({ ...base, prompt: 'a blue whale' });
    expect(other.images[0].b64).not.toBe(a.images[0].b64);
  });

  it('honours non-square sizes and resolves auto', () => {
    const wide = generateLocalImages({ ...base, n: 1, size: '512x256' });
    const png = PNG.sync.read(Buffer.from(wide.images[0].b64, 'base64'));
    expect([png.width, png.height]).toEqual([512, 256]);
    const auto = generateLocalImages({ ...base, n: 1, size: 'auto', quality: 'auto' });
    expect(auto.size).toBe('1024x1024');
    expect(auto.quality).toBe('medium');
  });
});
