import { Body, Controller, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiParam, ApiProduces, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { AllowSession, ApiKeyAuth, Caller, CurrentCaller } from '@app/auth';
import { ImageGenerationRequestDto, ImagesResponseDto, RestImagesResponseDto } from './dto/images.dto';
import { ImagesService } from './images.service';
import { ApiChargedErrors, RefuseUnknownMembers } from '@app/common';

const baseUrlOf = (req: Request): string => `${req.protocol}://${req.get('host') ?? 'localhost'}`;

/** Both generation endpoints take the same body: one Swagger example, on the offline local-image model. */
const LOCAL_IMAGE_EXAMPLES = {
  local: {
    summary: 'The built-in local-image model (works offline; a signed URL)',
    value: {
      model: 'local-image',
      prompt: 'A lighthouse on a cliff at dawn, watercolour',
      n: 1,
      size: '1024x1024',
      quality: 'low',
      response_format: 'url',
      user: 'user-42',
    },
  },
};

@ApiTags('Images')
@Controller()
export class ImagesController {
  constructor(private readonly images: ImagesService) {}

  @Post('v1/images/generations')
  @RefuseUnknownMembers(ImageGenerationRequestDto)
  @ApiChargedErrors()
  @ApiKeyAuth()
  @AllowSession('member')
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Generate images (OpenAI-compatible; the openai SDK works unchanged). Cost in `cost` and the x-gateway-cost-rub header.',
  })
  @ApiBody({ type: ImageGenerationRequestDto, examples: LOCAL_IMAGE_EXAMPLES })
  @ApiOkResponse({ type: ImagesResponseDto })
  async openAi(
    @CurrentCaller() caller: Caller,
    @Body() dto: ImageGenerationRequestDto,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<ImagesResponseDto> {
    const g = await this.images.generate(caller, dto, String(req.id), '/v1/images/generations', baseUrlOf(req));
    const out = this.images.toOpenAi(g);
    res.setHeader('x-gateway-cost-rub', String(out.cost.total_cost_rub));
    return out;
  }

  @Post('api/v1/images/generations')
  @ApiChargedErrors()
  @ApiKeyAuth()
  @AllowSession('member')
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Generate images (REST, api-key header): same body; answer with images, usage, cost breakdown and the model options',
  })
  @ApiBody({ type: ImageGenerationRequestDto, examples: LOCAL_IMAGE_EXAMPLES })
  @ApiOkResponse({ type: RestImagesResponseDto })
  async rest(
    @CurrentCaller() caller: Caller,
    @Body() dto: ImageGenerationRequestDto,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<RestImagesResponseDto> {
    const g = await this.images.generate(caller, dto, String(req.id), '/api/v1/images/generations', baseUrlOf(req));
    const out = this.images.toRest(g);
    res.setHeader('x-gateway-cost-rub', String(out.cost.total_cost_rub));
    return out;
  }

  @Get('v1/images/files/:id')
  @ApiOperation({
    summary:
      'A stored image (response_format url). No API key: readable only through the signed, expiring link the generation answered.',
  })
  @ApiParam({ name: 'id', example: 'img_0f3a9c1e2b4d4c7e8a1b2c3d4e5f6a7b' })
  @ApiQuery({ name: 'expires', description: 'Expiry, epoch milliseconds (part of the signed link)' })
  @ApiQuery({ name: 'sig', description: 'HMAC-SHA256 signature (part of the signed link)' })
  @ApiProduces('image/png', 'image/jpeg', 'image/webp')
  @ApiOkResponse({ description: 'The image bytes', schema: { type: 'string', format: 'binary' } })
  async file(
    @Param('id') id: string,
    @Query('expires') expires: string | undefined,
    @Query('sig') sig: string | undefined,
    @Res() res: Response,
  ): Promise<void> {
    const img = await this.images.readLinked(
      id,
      typeof expires === 'string' ? expires : undefined,
      typeof sig === 'string' ? sig : undefined,
    );
    res.setHeader('content-type', img.mime);
    res.setHeader('cache-control', 'private, max-age=300');
    res.setHeader('x-content-type-options', 'nosniff');
    res.status(200).end(img.bytes);
  }
}
