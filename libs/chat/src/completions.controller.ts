import { Body, Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiBody, ApiExtraModels, ApiOkResponse, ApiOperation, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { ChatCompletionChunkDto, ChatCompletionResponseDto } from './dto/chat-completion-response.dto';
import type { Request, Response } from 'express';
import { AllowSession, ApiKeyAuth, Caller, CurrentCaller } from '@app/auth';
import { CompletionsService } from './completions.service';
import { ChatTimings, serverTiming } from './rest-chat.service';
import { ChatCompletionRequestDto } from './dto/chat-completions.dto';
import { clientAbortSignal, SseWriter } from './sse-writer';
import { ApiChargedErrors, ErrorResponseDto, RefuseUnknownMembers } from '@app/common';

@ApiExtraModels(ChatCompletionResponseDto, ChatCompletionChunkDto)
@ApiTags('OpenAI-compatible')
@ApiKeyAuth()
// the playground: a signed-in member chats for the team named by x-team-id, charged like a key
@AllowSession('member')
@Controller('v1/chat/completions')
export class CompletionsController {
  constructor(private readonly completions: CompletionsService) {}

  @Post()
  @RefuseUnknownMembers(ChatCompletionRequestDto)
  @HttpCode(200)
  @ApiOperation({
    summary: 'Chat completions (OpenAI-compatible)',
    description:
      'Works with the official OpenAI SDKs (baseURL = <gateway>/v1). Streaming: `chat.completion.chunk` events, then `data: [DONE]`; with stream_options.include_usage a last chunk with `choices: []`, `usage` and `cost`. Non-streaming responses carry an extra `cost` object and the `x-gateway-cost-rub` header.',
  })
  @ApiBody({ type: ChatCompletionRequestDto })
  @ApiOkResponse({
    description:
      'A chat.completion object; with stream: true an SSE stream of chat.completion.chunk events ending with `data: [DONE]`',
    headers: {
      'x-gateway-model': {
        description: 'The model that served the answer (the requested one, or a fallback)',
        schema: { type: 'string' },
      },
    },
    content: {
      'application/json': { schema: { $ref: getSchemaPath(ChatCompletionResponseDto) } },
      // each event's data: a chunk, or one error object after a failure mid-stream
      'text/event-stream': {
        schema: { oneOf: [{ $ref: getSchemaPath(ChatCompletionChunkDto) }, { $ref: getSchemaPath(ErrorResponseDto) }] },
      },
    },
  })
  @ApiChargedErrors()
  async create(
    @CurrentCaller() caller: Caller,
    @Body() dto: ChatCompletionRequestDto,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const signal = clientAbortSignal(res);
    const timings: ChatTimings = {};
    const prep = await this.completions.prepare(caller, dto, String(req.id), timings);
    if (timings.contextMs !== undefined) res.setHeader('server-timing', serverTiming(timings));
    if (!dto.stream) {
      const { body, cost, servedModel } = await this.completions.complete(prep, signal);
      res.setHeader('x-gateway-cost-rub', String(cost.total_cost_rub));
      res.setHeader('x-gateway-model', servedModel);
      res.status(200).json(body);
      return;
    }
    await SseWriter.pipe(res, this.completions.stream(prep, signal, dto.stream_options?.include_usage === true));
  }
}
