import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsNotEmpty, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { CostBreakdownDto } from '@app/common';

/** POST /v1/images/generations (OpenAI) and POST /api/v1/images/generations (REST): one body. */
export class ImageGenerationRequestDto {
  @ApiProperty({
    type: String,
    nullable: true,
    example: 'local-image',
    description:
      'An image model from GET /v1/models (local-image works offline; gpt-image-1, dall-e-3, gemini-2.5-flash-image need provider keys)',
  })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  model: string;

  @ApiProperty({
    example: 'A lighthouse on a cliff at dawn, watercolour',
    description: "Up to the model's max_prompt_chars",
  })
  @IsString()
  @MaxLength(32_000)
  prompt: string;

  @ApiPropertyOptional({
    type: Number,
    nullable: true,
    example: 1,
    default: 1,
    description: "Number of images (1 to the model's max_n; dall-e-3: 1)",
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(10)
  n?: number;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: '1024x1024',
    description: "One of the model's sizes (GET /v1/models/{id}), or auto where offered",
  })
  @IsOptional()
  @IsString()
  @MaxLength(20)
  size?: string;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: 'low',
    description: 'low | medium | high | auto (GPT image, local-image); standard | hd (dall-e-3)',
  })
  @IsOptional()
  @IsIn(['low', 'medium', 'high', 'auto', 'standard', 'hd'])
  quality?: string;

  @ApiPropertyOptional({ nullable: true, enum: ['vivid', 'natural'], description: 'dall-e-3 only' })
  @IsOptional()
  @IsIn(['vivid', 'natural'])
  style?: 'vivid' | 'natural';

  @ApiPropertyOptional({
    nullable: true,
    enum: ['transparent', 'opaque', 'auto'],
    description: 'GPT image models only',
  })
  @IsOptional()
  @IsIn(['transparent', 'opaque', 'auto'])
  background?: 'transparent' | 'opaque' | 'auto';

  @ApiPropertyOptional({ nullable: true, enum: ['png', 'jpeg', 'webp'], default: 'png' })
  @IsOptional()
  @IsIn(['png', 'jpeg', 'webp'])
  output_format?: 'png' | 'jpeg' | 'webp';

  @ApiPropertyOptional({ type: Number, nullable: true, example: 80, description: '0–100, jpeg/webp only' })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(100)
  output_compression?: number;

  @ApiPropertyOptional({
    nullable: true,
    enum: ['b64_json', 'url'],
    default: 'b64_json',
    description: 'url: the gateway stores the image and answers a signed link valid for IMAGE_URL_TTL_SECONDS (60 min)',
  })
  @IsOptional()
  @IsIn(['b64_json', 'url'])
  response_format?: 'b64_json' | 'url';

  @ApiPropertyOptional({ example: 'user-42' }) @IsOptional() @IsString() @MaxLength(256) user?: string;
}

export class GeneratedImageDto {
  @ApiPropertyOptional({ description: 'Base64 image bytes (response_format b64_json)' }) b64_json?: string;
  @ApiPropertyOptional({
    description: 'Signed link (response_format url)',
    example: 'http://localhost:3000/v1/images/files/img_0f3a…?expires=1767225600000&sig=…',
  })
  url?: string;
  @ApiPropertyOptional({ description: "The provider's rewritten prompt, when it gives one" }) revised_prompt?: string;
}

export class ImageInputTokensDetailsDto {
  @ApiProperty({ example: 12 }) text_tokens: number;
  @ApiProperty({ example: 0 }) image_tokens: number;
}

export class ImageUsageDto {
  @ApiProperty({ example: 12 }) input_tokens: number;
  @ApiProperty({ type: ImageInputTokensDetailsDto }) input_tokens_details: ImageInputTokensDetailsDto;
  @ApiProperty({ example: 272 }) output_tokens: number;
  @ApiProperty({ example: 284 }) total_tokens: number;
}

/** OpenAI's images response plus the gateway's `cost`. */
export class ImagesResponseDto {
  @ApiProperty({ example: 1767225600 }) created: number;
  @ApiProperty({ type: [GeneratedImageDto] }) data: GeneratedImageDto[];
  @ApiPropertyOptional({
    enum: ['1024x1024', '1024x1536', '1536x1024'],
    example: '1024x1024',
    description: 'Absent when the model made another size (256x256, 512x512; dall-e-3: 1792x1024, 1024x1792)',
  })
  size?: string;
  @ApiPropertyOptional({
    enum: ['low', 'medium', 'high'],
    example: 'medium',
    description: 'Absent when the model used another quality (dall-e-3: standard, hd)',
  })
  quality?: string;
  @ApiPropertyOptional({ enum: ['png', 'webp', 'jpeg'], example: 'png' }) output_format?: string;
  @ApiPropertyOptional({
    type: ImageUsageDto,
    description: 'Present when the provider reports token usage (GPT image, Gemini)',
  })
  usage?: ImageUsageDto;
  @ApiProperty({ type: CostBreakdownDto, description: 'Gateway extension' }) cost: CostBreakdownDto;
}

export class RestImageUsageDto {
  @ApiProperty({ example: 1 }) images: number;
  @ApiProperty({ example: 0, description: 'Provider-reported input tokens (0 when priced per image)' })
  input_tokens: number;
  @ApiProperty({ example: 0, description: 'Provider-reported output tokens (0 when priced per image)' })
  output_tokens: number;
}

export class RestImageModelDto {
  @ApiProperty({ example: 'local-image' }) model: string;
  @ApiProperty({ example: ['auto', '256x256', '512x512', '1024x1024'] }) sizes: string[];
  @ApiProperty({ example: ['auto', 'low', 'medium', 'high'] }) qualities: string[];
}

export class RestImagesResponseDto {
  @ApiProperty({ type: [GeneratedImageDto] }) images: GeneratedImageDto[];
  @ApiProperty({ type: RestImageUsageDto }) usage: RestImageUsageDto;
  @ApiProperty({ type: CostBreakdownDto }) cost: CostBreakdownDto;
  @ApiProperty({ type: RestImageModelDto }) model: RestImageModelDto;
}
