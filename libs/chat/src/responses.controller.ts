import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import {
  ApiBody,
  ApiExtraModels,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiResponse,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { AllowSession, ApiKeyAuth, Caller, CurrentCaller } from '@app/auth';
import {
  InputItemsQueryDto,
  ResponseCreateRequestDto,
  ResponseDeletedDto,
  ResponseInputItemListDto,
  ResponseMcpCallErrorDto,
  ResponseObjectDto,
  ResponseStreamEventDto,
} from './dto/responses.dto';
import { ResponsesService } from './responses.service';
import { clientAbortSignal, SseWriter } from './sse-writer';
import { ApiChargedErrors, RefuseUnknownMembers } from '@app/common';

@ApiExtraModels(ResponseObjectDto, ResponseStreamEventDto, ResponseMcpCallErrorDto)
@ApiTags('OpenAI-compatible')
@ApiKeyAuth()
@AllowSession()
@Controller('v1/responses')
export class ResponsesController {
  constructor(private readonly responses: ResponsesService) {}

  @Post()
  @RefuseUnknownMembers(ResponseCreateRequestDto)
  @HttpCode(200)
  @ApiOperation({
    summary: 'Responses (OpenAI Responses API, text, function tools and file search)',
    description:
      'The OpenAI Responses API on the same pipeline and billing as /v1/chat/completions: works with `client.responses.create` of the OpenAI SDKs and the Vercel AI SDK OpenAI provider (baseURL = <gateway>/v1). Text and image input; the file_search tool searches the caller’s vector stores before the model answers (a file_search_call output item, file_citation annotations; the query embedding is charged as retrieval); answers are stored for 30 days unless store: false (GET, DELETE, input_items, previous_response_id). Non-streaming answers carry `cost` and the `x-gateway-cost-rub` header; with stream: true the final response.completed event carries usage and cost.',
  })
  @ApiBody({
    type: ResponseCreateRequestDto,
    examples: {
      text: {
        summary: 'Plain text with the local model',
        value: {
          model: 'local',
          instructions: 'Be brief.',
          input: 'Say hello in one short sentence.',
          max_output_tokens: 64,
        },
      },
    },
  })
  @ApiOkResponse({
    headers: {
      'x-gateway-model': {
        description: 'The model that served the answer (the requested one, or a fallback)',
        schema: { type: 'string' },
      },
    },
    description:
      'A `response` object; with stream: true Server-Sent Events (`event: <type>` + JSON data with sequence_number) ending with response.completed',
    content: {
      'application/json': { schema: { $ref: getSchemaPath(ResponseObjectDto) } },
      'text/event-stream': { schema: { $ref: getSchemaPath(ResponseStreamEventDto) } },
    },
  })
  @ApiChargedErrors()
  async create(
    @CurrentCaller() caller: Caller,
    @Body() dto: ResponseCreateRequestDto,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const signal = clientAbortSignal(res);
    const prep = await this.responses.prepare(caller, dto, String(req.id));
    if (!dto.stream) {
      const { body, cost, servedModel } = await this.responses.complete(prep, signal);
      res.setHeader('x-gateway-cost-rub', String(cost.total_cost_rub));
      res.setHeader('x-gateway-model', servedModel);
      res.status(200).json(body);
      return;
    }
    await SseWriter.pipe(res, this.responses.stream(prep, signal));
  }

  @Get(':response_id')
  @ApiOperation({ summary: 'A stored response of the team (store: true, kept 30 days)' })
  @ApiParam({ name: 'response_id', example: 'resp_6f0c0a2b9d3e4c51a7b8c9d0e1f2a3b4' })
  @ApiOkResponse({ type: ResponseObjectDto })
  @ApiResponse({ status: 404, description: 'Unknown, deleted or expired (response_not_found)' })
  retrieve(@CurrentCaller() caller: Caller, @Param('response_id') id: string): Promise<Record<string, unknown>> {
    return this.responses.retrieve(caller, id);
  }

  @Delete(':response_id')
  @ApiOperation({ summary: 'Deletes a stored response' })
  @ApiParam({ name: 'response_id', example: 'resp_6f0c0a2b9d3e4c51a7b8c9d0e1f2a3b4' })
  @ApiOkResponse({ type: ResponseDeletedDto })
  @ApiResponse({ status: 404, description: 'Unknown, deleted or expired (response_not_found)' })
  remove(@CurrentCaller() caller: Caller, @Param('response_id') id: string): Promise<ResponseDeletedDto> {
    return this.responses.remove(caller, id);
  }

  @Get(':response_id/input_items')
  @ApiOperation({ summary: 'The input items of a stored response (cursor pages: after, limit, order)' })
  @ApiParam({ name: 'response_id', example: 'resp_6f0c0a2b9d3e4c51a7b8c9d0e1f2a3b4' })
  @ApiOkResponse({ type: ResponseInputItemListDto })
  @ApiResponse({ status: 404, description: 'Unknown, deleted or expired (response_not_found)' })
  inputItems(
    @CurrentCaller() caller: Caller,
    @Param('response_id') id: string,
    @Query() q: InputItemsQueryDto,
  ): Promise<Record<string, unknown>> {
    return this.responses.inputItems(caller, id, q);
  }
}
