import { Controller, Get, Param } from '@nestjs/common';
import { ApiError } from '@app/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { AllowSession, ApiKeyAuth } from '@app/auth';
import { ModelCatalogService } from './model-catalog.service';
import { CatalogModelsDto, OpenAiModelDto, OpenAiModelListDto } from './dto/models.dto';
import { ModelEntry } from './catalog/model-catalog';

@ApiTags('Models')
@ApiKeyAuth()
@AllowSession()
@Controller()
export class ModelsController {
  constructor(private readonly catalog: ModelCatalogService) {}

  @Get('v1/models')
  @ApiOperation({ summary: 'Models in the OpenAI list shape (chat, embedding and image models)' })
  @ApiOkResponse({ type: OpenAiModelListDto })
  openAiList(): OpenAiModelListDto {
    return { object: 'list', data: this.catalog.list().map((m) => this.openAiModel(m)) };
  }

  @Get('v1/models/:id')
  @ApiOperation({ summary: 'One model in the OpenAI shape (what openai.models.retrieve calls)' })
  @ApiParam({ name: 'id', example: 'local' })
  @ApiOkResponse({ type: OpenAiModelDto })
  openAiModelById(@Param('id') id: string): OpenAiModelDto {
    const m = this.catalog.find(id);
    if (!m)
      throw ApiError.notFound(
        `The model '${id}' does not exist. GET /v1/models lists the available models.`,
        'model_not_found',
        'model',
      );
    return this.openAiModel(m);
  }

  private openAiModel(m: ModelEntry): OpenAiModelDto {
    return { id: m.key, object: 'model', created: 1_700_000_000, owned_by: m.provider };
  }

  @Get('api/v1/models')
  @ApiOperation({ summary: 'The model catalog with capabilities, availability and RUB prices' })
  @ApiOkResponse({ type: CatalogModelsDto })
  catalogList(): CatalogModelsDto {
    return {
      data: this.catalog.list().map((m) => ({
        key: m.key,
        provider: m.provider,
        kind: m.kind,
        context_window: m.context_window,
        max_output_tokens: m.kind === 'chat' ? m.max_output_tokens : null,
        dimensions: m.dimensions,
        supports_images: m.supports_images,
        supports_tools: m.supports_tools,
        full_context: m.full_context,
        available: this.catalog.isAvailable(m),
        pricing: { ...m.pricing },
        image: m.image ? { ...m.image } : null,
      })),
    };
  }
}
