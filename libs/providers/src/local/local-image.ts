import { createHash } from 'node:crypto';
import { PNG } from 'pngjs';
import { ImageGenerationRequest, ImageGenerationResult, parseSize } from '../images/image-types';

/**
 * The offline `local-image` generator. NOT a model: it draws a deterministic procedural pattern
 * (a two-colour gradient with soft discs and bands) whose colours and layout are derived from a
 * SHA-256 of prompt, size, quality and image index. The same request always yields the same PNG
 * bytes; different prompts yield visibly different images. It exists so that the whole image
 * flow — validation, billing, storage, signed URLs, SDKs — works on a machine with no provider key.
 */
export const LOCAL_IMAGE_DETAIL: Record<string, number> = { low: 3, medium: 6, high: 12, auto: 6, standard: 6, hd: 12 };

export function generateLocalImages(req: ImageGenerationRequest): ImageGenerationResult {
  const size = req.size === 'auto' ? '1024x1024' : req.size;
  const dims = parseSize(size);
  if (!dims) throw new Error(`local-image: unsupported size ${req.size}`);
  const quality = req.quality === 'auto' ? 'medium' : req.quality;
  const images = [];
  for (let i = 0; i < req.n; i++) {
    const seed = createHash('sha256').update(`${req.prompt}\u0000${size}\u0000${quality}\u0000${i}`).digest();
    images.push({
      b64: renderPattern(dims.width, dims.height, seed, LOCAL_IMAGE_DETAIL[quality] ?? 6).toString('base64'),
      mime: 'image/png',
    });
  }
  return { images, usage: null, size, quality, output_format: 'png' };
}

interface Disc {
  x: number;
  y: number;
  r: number;
  c: [number, number, number];
}

/** Seeded pattern → PNG bytes (RGBA, 8-bit). Pure function of its arguments. */
export function renderPattern(width: number, height: number, seed: Buffer, detail: number): Buffer {
  let state = seed.readUInt32LE(0) ^ seed.readUInt32LE(4);
  const rand = (): number => {
    // xorshift32: enough for a picture, deterministic across platforms
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state / 0x100000000;
  };
  const colour = (): [number, number, number] => [
    Math.floor(rand() * 256),
    Math.floor(rand() * 256),
    Math.floor(rand() * 256),
  ];
  const top = colour();
  const bottom = colour();
  const discs: Disc[] = [];
  for (let k = 0; k < detail; k++) {
    discs.push({
      x: rand() * width,
      y: rand() * height,
      r: (0.05 + rand() * 0.25) * Math.min(width, height),
      c: colour(),
    });
  }
  const bandPeriod = 8 + Math.floor(rand() * 56);
  const png = new PNG({ width, height });
  const data = png.data;
  for (let y = 0; y < height; y++) {
    const t = y / Math.max(1, height - 1);
    for (let x = 0; x < width; x++) {
      let r = top[0] * (1 - t) + bottom[0] * t;
      let g = top[1] * (1 - t) + bottom[1] * t;
      let b = top[2] * (1 - t) + bottom[2] * t;
      if (((x + y) / bandPeriod) % 2 < 1) {
        r *= 0.92;
        g *= 0.92;
        b *= 0.92;
      }
      for (const d of discs) {
        const dx = x - d.x;
        const dy = y - d.y;
        const dist2 = dx * dx + dy * dy;
        if (dist2 < d.r * d.r) {
          const a = 0.65 * (1 - Math.sqrt(dist2) / d.r);
          r = r * (1 - a) + d.c[0] * a;
          g = g * (1 - a) + d.c[1] * a;
          b = b * (1 - a) + d.c[2] * a;
        }
      }
      const o = (y * width + x) * 4;
      data[o] = r;
      data[o + 1] = g;
      data[o + 2] = b;
      data[o + 3] = 255;
    }
  }
  // filter "Sub" (1) suits horizontal gradients and avoids pngjs's adaptive per-row filter search
  return PNG.sync.write(png, { filterType: 1 });
}
