import type { ModelEntry } from '@app/providers';
import { MAX_FILE_BYTES, MAX_IMAGES } from '../image-inliner';
import type { ContextImage } from './ports';

/** Image types every vision provider takes (as the image inliner checks them). */
const VISION_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];

/**
 * Step 4b, images among project files: none to a model without image input; otherwise as data: URLs
 * while the request stays within 20 images (its own count first), each ≤ 10 MB and of a vision type.
 */
export function fitImages(
  images: readonly ContextImage[],
  model: ModelEntry,
  requestImages: number,
  notes: string[],
): { imageUrls: string[]; skipped: number } {
  if (!images.length) return { imageUrls: [], skipped: 0 };
  if (!model.supports_images) {
    notes.push(`The model ${model.key} does not accept images: ${images.length} project image(s) were not sent.`);
    return { imageUrls: [], skipped: images.length };
  }
  const slots = Math.max(0, MAX_IMAGES - requestImages);
  const imageUrls: string[] = [];
  let skipped = 0;
  for (const img of images) {
    if (
      img.bytes.length > MAX_FILE_BYTES ||
      !VISION_TYPES.includes(img.mime.toLowerCase()) ||
      imageUrls.length >= slots
    ) {
      skipped++;
      continue;
    }
    imageUrls.push(`data:${img.mime};base64,${img.bytes.toString('base64')}`);
  }
  if (skipped)
    notes.push(
      `${skipped} project image(s) were not sent (at most ${MAX_IMAGES} images per request, each ≤ 10 MB, png/jpeg/gif/webp).`,
    );
  return { imageUrls, skipped };
}
