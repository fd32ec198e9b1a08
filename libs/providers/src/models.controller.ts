import { Controller, Get, Headers, Param, Req } from '@nestjs/common';
import type { Request } from 'express';
import { ApiError } from '@app/common';
import {
  ApiExtraModels,
  ApiHeader,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import { AllowSession, ApiKeyAuth } from '@app/auth';
import { ModelCatalogService } from './model-catalog.service';
import {
  AnthropicModelDto,
  AnthropicModelListDto,
  CatalogModelsDto,
  OpenAiModelDto,
  OpenAiModelListDto,
} from './dto/models.dto';
import { ModelEntry } from './catalog/model-catalog';

const FX_MISSING = 'Priced in USD and no CBR rate is known yet (GET /api/v1/fx-rates).';

const ANTHROPIC_VERSION_HEADER = {
  name: 'anthropic-version',
  required: false,
  description: "When present (Anthropic SDKs send it), the answer is in Anthropic's model list shape",
};

@ApiTags('Models')
@ApiExtraModels(OpenAiModelListDto, AnthropicModelListDto, OpenAiModelDto, AnthropicModelDto)
@ApiKeyAuth()
@AllowSession()
@Controller()
export class ModelsController {
  constructor(private readonly catalog: ModelCatalogService) {}

  @Get('v1/models')
  @ApiOperation({
    summary:
      'Models in the OpenAI list shape (chat, embedding and image models); with anthropic-version, the chat models in the Anthropic shape',
  })
  @ApiHeader(ANTHROPIC_VERSION_HEADER)
  @ApiOkResponse({
    schema: { oneOf: [{ $ref: getSchemaPath(OpenAiModelListDto) }, { $ref: getSchemaPath(AnthropicModelListDto) }] },
  })
  openAiList(@Headers('anthropic-version') anthropicVersion?: string): OpenAiModelListDto | AnthropicModelListDto {
    if (anthropicVersion) {
      const data = this.catalog
        .list()
        .filter((m) => m.kind === 'chat')
        .map((m) => this.anthropicModel(m));
      return { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data[data.length - 1]?.id ?? null };
    }
    return { object: 'list', data: this.catalog.list().map((m) => this.openAiModel(m)) };
  }

  @Get('v1/models/:id')
  @ApiOperation({
    summary:
      'One model in the OpenAI shape (what openai.models.retrieve calls); with anthropic-version, the Anthropic shape',
  })
  @ApiParam({ name: 'id', example: 'local' })
  @ApiHeader(ANTHROPIC_VERSION_HEADER)
  @ApiOkResponse({
    schema: { oneOf: [{ $ref: getSchemaPath(OpenAiModelDto) }, { $ref: getSchemaPath(AnthropicModelDto) }] },
  })
  openAiModelById(
    @Param('id') id: string,
    @Headers('anthropic-version') anthropicVersion?: string,
  ): OpenAiModelDto | AnthropicModelDto {
    const m = this.catalog.entry(id);
    if (!m)
      throw ApiError.notFound(
        `The model '${id}' does not exist. GET /v1/models lists the available models.`,
        'model_not_found',
        'model',
      );
    return anthropicVersion ? this.anthropicModel(m) : this.openAiModel(m);
  }

  private anthropicModel(m: ModelEntry): AnthropicModelDto {
    return { type: 'model', id: m.key, display_name: m.key, created_at: '2023-11-14T22:13:20Z' };
  }

  private openAiModel(m: ModelEntry): OpenAiModelDto {
    return {
      id: m.key,
      object: 'model',
      created: 1_700_000_000,
      owned_by: m.provider,
      jurisdiction: this.catalog.jurisdiction(m),
      available: this.catalog.isAvailable(m),
      unavailable_reason: this.catalog.unavailableReason(m),
    };
  }

  @Get('api/v1/models')
  @ApiOperation({ summary: 'The model catalog with capabilities, availability and RUB prices' })
  @ApiOkResponse({ type: CatalogModelsDto })
  catalogList(@Req() req: Request & { caller?: { teamId?: string } }): CatalogModelsDto {
    const teamId = req.caller?.teamId ?? null;
    return {
      data: this.catalog.list().map((raw) => {
        const m = this.catalog.pricedOrNull(raw, teamId);
        return {
          ...this.catalogFields(raw),
          available: m !== null && this.catalog.isAvailable(raw),
          unavailable_reason: m === null ? FX_MISSING : this.catalog.unavailableReason(raw),
          pricing: m ? { ...m.pricing, cache_write_1h_rub_per_1m: m.pricing.cache_write_1h_rub_per_1m ?? null } : null,
          price_currency: raw.currency,
          fx: m?.fx ?? null,
          image: m?.image ? { ...m.image } : raw.image ? { ...raw.image } : null,
        };
      }),
    };
  }

  private catalogFields(m: ModelEntry) {
    return {
      key: m.key,
      provider: m.provider,
      kind: m.kind,
      context_window: m.context_window,
      max_output_tokens: m.kind === 'chat' ? m.max_output_tokens : null,
      dimensions: m.dimensions,
      supports_images: m.supports_images,
      supports_tools: m.supports_tools,
      full_context: m.full_context,
      jurisdiction: this.catalog.jurisdiction(m),
    };
  }
}
