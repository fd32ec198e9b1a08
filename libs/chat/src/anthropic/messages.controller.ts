import { Body, Controller, Headers, HttpCode, Post, Req, Res } from '@nestjs/common';
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
import { ApiKeyAuth, Caller, CurrentCaller, SECURITY } from '@app/auth';
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
function anthropicHeaders(version: string | undefined, beta: string | undefined): AnthropicClientHeaders {
  return {
    ...(version ? { 'anthropic-version': version } : {}),
    ...(beta ? { 'anthropic-beta': beta } : {}),
  };
}

const ERRORS = { type: MessagesErrorDto };

@ApiExtraModels(MessageResponseDto, MessagesErrorDto)
@ApiTags('Anthropic-compatible')
@ApiKeyAuth()
@ApiSecurity(SECURITY.xApiKey)
@ApiHeader({
  name: 'anthropic-version',
  required: false,
  description: 'Accepted (e.g. 2023-06-01); forwarded to Anthropic upstreams',
})
@ApiHeader({ name: 'anthropic-beta', required: false, description: 'Forwarded unchanged to Anthropic upstreams' })
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
  @ApiBody({ type: MessagesRequestDto })
  @ApiOkResponse({
    description: 'A message; with stream: true an SSE stream of the Messages API events',
    headers: {
      'x-gateway-cost-rub': { description: 'What the call cost (RUB), non-streaming only', schema: { type: 'string' } },
      'x-gateway-model': { description: 'The catalog model that served the answer', schema: { type: 'string' } },
    },
    content: {
      'application/json': { schema: { $ref: getSchemaPath(MessageResponseDto) } },
      'text/event-stream': { schema: { type: 'string' } },
    },
  })
  async create(
    @CurrentCaller() caller: Caller,
    @Body() dto: MessagesRequestDto,
    @Req() req: Request,
    @Res() res: Response,
    @Headers('anthropic-version') version?: string,
    @Headers('anthropic-beta') beta?: string,
  ): Promise<void> {
    const signal = clientAbortSignal(res);
    // the body as the client sent it (the DTO checked it; undeclared fields still pass to Claude)
    const body = req.body as Record<string, unknown>;
    const prepared = await this.messages.prepare(caller, body, anthropicHeaders(version, beta), String(req.id));
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
  @ApiBody({ type: CountTokensRequestDto })
  @ApiOkResponse({ type: CountTokensResponseDto })
  async countTokens(
    @Body() _dto: CountTokensRequestDto,
    @Req() req: Request,
    @Res() res: Response,
    @Headers('anthropic-version') version?: string,
    @Headers('anthropic-beta') beta?: string,
  ): Promise<void> {
    const body = req.body as Record<string, unknown>;
    const counted = await this.messages.countTokens(body, anthropicHeaders(version, beta), clientAbortSignal(res));
    res.setHeader('request-id', String(req.id));
    res.status(200).json(counted);
  }
}
