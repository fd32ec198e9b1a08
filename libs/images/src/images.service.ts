import { Injectable, Logger, OnModuleDestroy, OnModuleInit, Optional } from '@nestjs/common';
import { DataProtection } from '@app/data-protection';
import { ApiError, Clock, microToRub } from '@app/common';
import { AppConfig } from '@app/config';
import { assertModelAllowed, type Caller } from '@app/auth';
import { BillingService, ImageCost, imageCharge, imageHoldMicro } from '@app/billing';
import {
  ImageGenerationResult,
  ModelCatalogService,
  ModelEntry,
  ProviderRegistry,
  providerErrorToApiError,
  UpstreamRouter,
} from '@app/providers';
import { randomUUID } from 'node:crypto';
import { ImageGenerationRequestDto, ImagesResponseDto, RestImagesResponseDto } from './dto/images.dto';
import { ImageFileEntity } from './entities/image-file.entity';
import { ImageFilesRepository } from './image-files.repository';
import { resolveImageRequest } from './image-options';
import { checkImageLink, newLinkSecret, signImageLink } from './image-url-signer';

/** What one generation produced, before it is shaped for either endpoint. */
export interface ImageGeneration {
  model: ModelEntry;
  result: ImageGenerationResult;
  cost: ImageCost;
  /** one entry per image: a signed link (url mode) or null (b64 mode) */
  urls: (string | null)[];
  created: number;
}

const SWEEP_MS = 10 * 60_000;

/**
 * Image generation: catalog validation → reserve the worst case → provider call → store (url mode)
 * → settle the exact cost (release on any failure before it). Stored images are served only
 * through HMAC-signed links that expire.
 */
/** The values OpenAI's ImagesResponse allows for size, quality and output_format. */
const IMAGE_SIZES = ['1024x1024', '1024x1536', '1536x1024'];
const IMAGE_QUALITIES = ['low', 'medium', 'high'];
const IMAGE_FORMATS = ['png', 'webp', 'jpeg'];

@Injectable()
export class ImagesService implements OnModuleInit, OnModuleDestroy {
  private readonly log = new Logger(ImagesService.name);
  private secret: Promise<string> | null = null;
  private sweeper: NodeJS.Timeout | null = null;

  constructor(
    private readonly catalog: ModelCatalogService,
    private readonly registry: ProviderRegistry,
    private readonly billing: BillingService,
    private readonly files: ImageFilesRepository,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly router: UpstreamRouter,
    @Optional() private readonly protection: DataProtection = new DataProtection(),
  ) {}

  onModuleInit(): void {
    this.sweeper = setInterval(
      () => void this.sweepExpired().catch((err: Error) => this.log.warn(`image sweep failed: ${err.message}`)),
      SWEEP_MS,
    );
    this.sweeper.unref();
  }

  onModuleDestroy(): void {
    if (this.sweeper) clearInterval(this.sweeper);
  }

  async generate(
    caller: Caller,
    dto: ImageGenerationRequestDto,
    requestId: string,
    endpoint: string,
    baseUrl: string,
  ): Promise<ImageGeneration> {
    const model = this.catalog.require(dto.model, 'image');
    assertModelAllowed(caller, model.key);
    // the data policy: residency, and personal data in the prompt refused (block) or masked
    const protection = this.protection.forRequest(caller, requestId);
    protection.assertAllowed(model);
    protection.screenFor(model, [dto.prompt], 'prompt');
    const resolved = resolveImageRequest(model, dto);
    const req = protection.masksFor(model) ? { ...resolved, prompt: protection.mask(resolved.prompt) } : resolved;
    const provider = this.registry.images(model);
    const { result: g, charged } = await this.billing.meter({
      teamId: caller.teamId,
      caller,
      requestId,
      holdMicro: imageHoldMicro(model, req),
      run: async () => {
        let result: ImageGenerationResult;
        try {
          // nothing reached the client yet: a retryable failure is retried (<PROVIDER>_MAX_RETRIES)
          result = await this.router.retry(model, () => provider.generate(req), {
            requestId,
            policy: caller.dataPolicy,
          });
        } catch (err) {
          // the router counted every failed attempt (gateway_upstream_errors_total)
          throw providerErrorToApiError(err, model);
        }
        // never bill or hand out more images than were asked for
        if (result.images.length > req.n) result = { ...result, images: result.images.slice(0, req.n) };
        // stored before the charge: a storage failure releases the hold (nothing charged for images the caller never gets)
        const urls =
          dto.response_format === 'url'
            ? await this.store(caller.teamId, result, baseUrl)
            : result.images.map(() => null);
        return { result, urls, cost: imageCharge(model, result) };
      },
      charge: ({ result, cost }) => {
        const u = result.usage;
        return {
          costMicro: cost.totalMicro,
          details: {
            endpoint,
            model: model.key,
            apiKeyId: caller.apiKeyId,
            promptTokens: u ? u.text_input_tokens + u.image_input_tokens : 0,
            completionTokens: u ? u.output_tokens : 0,
            fx: model.fx ?? null,
            breakdown: {
              n: req.n,
              images: result.images.length,
              size: result.size,
              quality: result.quality,
              basis: cost.basis,
              image_micro: cost.imageMicro,
              input_micro: cost.inputMicro,
            },
          },
        };
      },
    });
    const { result, urls, cost } = g;
    const settled = { chargedMicro: charged?.chargedMicro ?? 0 };
    this.log.log(
      `images: ${model.key} n=${result.images.length} ${result.size}/${result.quality} charged ${settled.chargedMicro} µRUB (${cost.basis})`,
    );
    return {
      model,
      result,
      cost: { ...cost, totalMicro: settled.chargedMicro },
      urls,
      created: Math.floor(this.clock.now() / 1000),
    };
  }

  toOpenAi(g: ImageGeneration): ImagesResponseDto {
    const u = g.result.usage;
    return {
      created: g.created,
      data: g.result.images.map((img, i) => ({
        ...(g.urls[i] ? { url: g.urls[i]! } : { b64_json: img.b64 }),
        ...(img.revised_prompt ? { revised_prompt: img.revised_prompt } : {}),
      })),
      // OpenAI's answer names size, quality and format only with its own values (gpt-image-1's):
      // other sizes (256x256, dall-e-3's 1792x1024) and dall-e-3's "standard" / "hd" are left out
      ...(IMAGE_SIZES.includes(g.result.size) ? { size: g.result.size } : {}),
      ...(IMAGE_QUALITIES.includes(g.result.quality) ? { quality: g.result.quality } : {}),
      ...(IMAGE_FORMATS.includes(g.result.output_format) ? { output_format: g.result.output_format } : {}),
      ...(u
        ? {
            usage: {
              input_tokens: u.text_input_tokens + u.image_input_tokens,
              input_tokens_details: { text_tokens: u.text_input_tokens, image_tokens: u.image_input_tokens },
              output_tokens: u.output_tokens,
              total_tokens: u.text_input_tokens + u.image_input_tokens + u.output_tokens,
            },
          }
        : {}),
      cost: { total_cost_rub: microToRub(g.cost.totalMicro), currency: 'RUB' },
    };
  }

  toRest(g: ImageGeneration): RestImagesResponseDto {
    const u = g.result.usage;
    const spec = g.model.image!;
    return {
      images: g.result.images.map((img, i) => ({
        ...(g.urls[i] ? { url: g.urls[i]! } : { b64_json: img.b64 }),
        ...(img.revised_prompt ? { revised_prompt: img.revised_prompt } : {}),
      })),
      usage: {
        images: g.result.images.length,
        input_tokens: u ? u.text_input_tokens + u.image_input_tokens : 0,
        output_tokens: u ? u.output_tokens : 0,
      },
      cost: {
        image_cost_rub: microToRub(g.cost.imageMicro),
        input_cost_rub: microToRub(g.cost.inputMicro),
        total_cost_rub: microToRub(g.cost.totalMicro),
        currency: 'RUB',
      },
      model: { model: g.model.key, sizes: spec.sizes, qualities: spec.qualities },
    };
  }

  /** A stored image for a signed link: 403 for a bad or expired signature, 404 when it is gone. */
  async readLinked(
    id: string,
    expires: string | undefined,
    sig: string | undefined,
  ): Promise<{ mime: string; bytes: Buffer }> {
    const check = checkImageLink(await this.linkSecret(), id, expires, sig, this.clock.now());
    if (check === 'invalid')
      throw ApiError.forbidden('The image link signature is missing or invalid.', 'invalid_signature');
    if (check === 'expired')
      throw ApiError.forbidden(
        'The image link has expired; generate the image again or ask for b64_json.',
        'link_expired',
      );
    const row = await this.files.findById(id);
    if (!row || row.expiresAt <= this.clock.now()) throw ApiError.notFound('No such image.', 'not_found');
    return { mime: row.mime, bytes: Buffer.isBuffer(row.bytes) ? row.bytes : Buffer.from(row.bytes) };
  }

  async sweepExpired(): Promise<number> {
    const n = await this.files.deleteExpired(this.clock.now());
    if (n > 0) this.log.log(`images: removed ${n} expired stored image(s)`);
    return n;
  }

  private async store(teamId: string, result: ImageGenerationResult, baseUrl: string): Promise<string[]> {
    const now = this.clock.now();
    const expiresAt = now + this.config.imageUrlTtlMs;
    const rows: ImageFileEntity[] = result.images.map((img) => {
      const bytes = Buffer.from(img.b64, 'base64');
      return {
        id: `img_${randomUUID().replace(/-/g, '')}`,
        teamId,
        mime: img.mime,
        byteSize: bytes.length,
        bytes,
        createdAt: now,
        expiresAt,
      };
    });
    await this.files.insertMany(rows);
    const secret = await this.linkSecret();
    const base = (this.config.publicBaseUrl ?? baseUrl).replace(/\/+$/, '');
    return rows.map(
      (r) => `${base}/v1/images/files/${r.id}?expires=${expiresAt}&sig=${signImageLink(secret, r.id, expiresAt)}`,
    );
  }

  private linkSecret(): Promise<string> {
    if (this.config.imageUrlSecret) return Promise.resolve(this.config.imageUrlSecret);
    if (!this.secret) {
      this.secret = this.files.secret('image-url-signing', newLinkSecret(), this.clock.now());
      this.secret.catch(() => (this.secret = null));
    }
    return this.secret;
  }
}
