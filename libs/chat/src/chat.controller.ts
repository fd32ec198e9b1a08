import { Body, Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import {
  ApiBody,
  ApiExtraModels,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { AllowSession, ApiKeyAuth, Caller, CurrentCaller } from '@app/auth';
import { ChatTimings, RestChatService, serverTiming } from './rest-chat.service';
import { ChatRequestDto } from './dto/chat-request.dto';
import { ChatResponseDto, ChatStreamDeltaDto, ChatStreamReasoningDto } from './dto/chat-response.dto';
import { clientAbortSignal, SseWriter } from './sse-writer';
import { ApiChargedErrors, ErrorResponseDto } from '@app/common';

@ApiTags('Chat')
@ApiKeyAuth()
// the playground: a signed-in member chats for the team named by x-team-id, charged like a key
@AllowSession('member')
@Controller('api/v1/chat')
export class ChatController {
  constructor(private readonly rest: RestChatService) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Chat (REST)',
    description:
      'With `stream: true` the answer is Server-Sent Events: `event: reasoning` {reasoning}, `event: delta` {text}, then `event: done` with the full response object (usage, cost), or `event: error` {error}.',
  })
  @ApiBody({
    type: ChatRequestDto,
    examples: {
      local: {
        summary: 'The built-in local model (works offline)',
        value: {
          model: 'local',
          user_id: 'user-42',
          system_prompt: 'Paris is the capital of France.',
          prompt: 'What is the capital of France?',
          messages: [
            { role: 'user', content: 'Hello!' },
            { role: 'assistant', content: 'Hello! How can I help?' },
          ],
          max_tokens: 256,
          temperature: 0.2,
        },
      },
    },
  })
  @ApiExtraModels(ChatResponseDto, ChatStreamDeltaDto, ChatStreamReasoningDto, ErrorResponseDto)
  @ApiOkResponse({
    content: {
      'application/json': { schema: { $ref: getSchemaPath(ChatResponseDto) } },
      // each event's data: delta {text}, reasoning {reasoning}, done (the response object), error {error}
      'text/event-stream': {
        schema: {
          oneOf: [ChatStreamDeltaDto, ChatStreamReasoningDto, ChatResponseDto, ErrorResponseDto].map((m) => ({
            $ref: getSchemaPath(m),
          })),
        },
      },
    },
    headers: {
      'x-gateway-model': {
        description: 'The model that served the answer (the requested one, or a fallback)',
        schema: { type: 'string' },
      },
    },
  })
  @ApiChargedErrors()
  @ApiResponse({ status: 503, description: 'Model unavailable (provider credentials not configured)' })
  async chat(
    @CurrentCaller() caller: Caller,
    @Body() body: ChatRequestDto,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const signal = clientAbortSignal(res);
    const requestId = String(req.id);
    if (!body.stream) {
      const timings: ChatTimings = {};
      const out = await this.rest.complete(caller, body, requestId, signal, timings);
      res.setHeader('x-gateway-cost-rub', String(out.cost.total_cost_rub));
      if (timings.contextMs !== undefined) res.setHeader('server-timing', serverTiming(timings));
      res.setHeader('x-gateway-model', out.model.model);
      res.status(200).json(out);
      return;
    }
    await SseWriter.pipe(res, await this.rest.stream(caller, body, requestId, signal));
  }
}
