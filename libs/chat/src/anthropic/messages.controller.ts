import { Body, Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import {
  ApiBody,
  ApiExtraModels,
  ApiHeader,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
  ApiSecurity,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { AllowSession, ApiKeyAuth, Caller, CurrentCaller, SECURITY } from '@app/auth';
import { clientAbortSignal, SseWriter } from '../sse-writer';
import {
  CountTokensRequestDto,
  CountTokensResponseDto,
  MessageResponseDto,
  MessagesErrorDto,
  MessagesRequestDto,
} from './dto/messages.dto';
import { AnthropicClientHeaders, MessagesService } from './messages.service';

/** The client's anthropic-version / anthropic-beta headers (forwarded to Anthropic upstreams). */
function anthropicHeaders(req: Request): AnthropicClientHeaders {
  const one = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v.join(',') : v);
  const version = one(req.headers['anthropic-version']);
  const beta = one(req.headers['anthropic-beta']);
  return {
    ...(version ? { 'anthropic-version': version } : {}),
    ...(beta ? { 'anthropic-beta': beta } : {}),
  };
}

const ERRORS = { type: MessagesErrorDto };

@ApiExtraModels(MessageResponseDto, MessagesErrorDto)
@ApiTags('Anthropic-compatible')
@ApiKeyAuth()
@AllowSession('member')
@ApiSecurity(SECURITY.xApiKey)
@ApiHeader({
  name: 'anthropic-version',
  required: false,
  example: '2023-06-01',
  description: 'Accepted (e.g. 2023-06-01); forwarded to Anthropic upstreams',
})
@ApiHeader({
  name: 'anthropic-beta',
  required: false,
  example: 'prompt-caching-2024-07-31',
  description: 'Forwarded unchanged to Anthropic upstreams',
})
@ApiResponse({ status: 400, description: 'invalid_request_error', ...ERRORS })
@ApiResponse({ status: 402, description: 'billing_error: the balance does not cover the worst-case cost', ...ERRORS })
@ApiResponse({ status: 404, description: 'not_found_error: unknown model', ...ERRORS })
@ApiResponse({ status: 429, description: 'rate_limit_error (Retry-After)', ...ERRORS })
@ApiResponse({ status: 529, description: 'overloaded_error: the upstream is overloaded', ...ERRORS })
@Controller('v1/messages')
export class MessagesController {
  constructor(private readonly messages: MessagesService) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Messages (Anthropic-compatible)',
    description:
      'Works with Claude Code and the official Anthropic SDKs (base URL = <gateway>, key in x-api-key or Authorization: Bearer). Claude models get the body as sent; other models are translated. The message carries an extra `cost` object and the `x-gateway-cost-rub` / `x-gateway-model` headers; streams carry `cost` on message_delta. Errors: {"type":"error","error":{"type","message"}}.',
  })
  @ApiBody({
    type: MessagesRequestDto,
    examples: {
      local: {
        summary: 'The offline local model (translated)',
        value: {
          model: 'local',
          max_tokens: 256,
          system: 'You are terse.',
          messages: [{ role: 'user', content: 'Hello' }],
        },
      },
      claude: {
        summary: 'A Claude model (passed through natively) with a cached system prompt and a tool',
        value: {
          model: 'claude-sonnet-4',
          max_tokens: 1024,
          system: [{ type: 'text', text: 'You are a weather bot.', cache_control: { type: 'ephemeral', ttl: '1h' } }],
          tools: [
            {
              name: 'get_weather',
              description: 'Current weather',
              input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
            },
          ],
          messages: [{ role: 'user', content: 'Weather in Paris?' }],
        },
      },
    },
  })
  @ApiOkResponse({
    description: 'A message; with stream: true an SSE stream of the Messages API events',
    headers: {
      'x-gateway-cost-rub': { description: 'What the call cost (RUB), non-streaming only', schema: { type: 'string' } },
      'x-gateway-model': { description: 'The catalog model that served the answer', schema: { type: 'string' } },
    },
    content: {
      'application/json': { schema: { $ref: getSchemaPath(MessageResponseDto) } },
      'text/event-stream': {
        schema: {
          type: 'object',
          description:
            "One event of Anthropic's stream (the SSE `event:` name repeats `type`); Claude models relay the upstream's events as they are, so members beyond `type` follow Anthropic's event shapes",
          required: ['type'],
          properties: {
            type: {
              type: 'string',
              enum: [
                'message_start',
                'content_block_start',
                'content_block_delta',
                'content_block_stop',
                'message_delta',
                'message_stop',
                'ping',
                'error',
              ],
            },
          },
          additionalProperties: true,
        },
      },
    },
  })
  async create(
    @CurrentCaller() caller: Caller,
    @Body() dto: MessagesRequestDto,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const signal = clientAbortSignal(res);
    // the body as the client sent it (the DTO checked it; undeclared fields still pass to Claude)
    const body = req.body as Record<string, unknown>;
    const prepared = await this.messages.prepare(caller, body, anthropicHeaders(req), String(req.id));
    res.setHeader('request-id', String(req.id));
    if (!dto.stream) {
      const { body: message, cost, servedModel } = await this.messages.complete(prepared, signal);
      res.setHeader('x-gateway-cost-rub', String(cost.total_cost_rub));
      res.setHeader('x-gateway-model', servedModel);
      res.status(200).json(message);
      return;
    }
    await SseWriter.pipe(res, this.messages.stream(prepared, signal));
  }

  @Post('count_tokens')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Count input tokens (Anthropic-compatible), free of charge',
    description:
      "Claude models: the provider's own count (its free counting endpoint); other models: the gateway's tokenizer.",
  })
  @ApiBody({
    type: CountTokensRequestDto,
    examples: {
      local: { value: { model: 'local', system: 'You are terse.', messages: [{ role: 'user', content: 'Hello' }] } },
    },
  })
  @ApiOkResponse({ type: CountTokensResponseDto })
  async countTokens(
    @CurrentCaller() caller: Caller,
    @Body() _dto: CountTokensRequestDto,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const body = req.body as Record<string, unknown>;
    const counted = await this.messages.countTokens(caller, body, anthropicHeaders(req), clientAbortSignal(res));
    res.setHeader('request-id', String(req.id));
    res.status(200).json(counted);
  }
}
