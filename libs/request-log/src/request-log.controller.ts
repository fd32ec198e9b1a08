import {
  applyDecorators,
  Controller,
  createParamDecorator,
  ExecutionContext,
  Get,
  Param,
  Query,
  Res,
  UseGuards,
} from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiProduces, ApiResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { AllowSession, SECURITY } from '@app/auth';
import { ApiError } from '@app/common';
import {
  RequestLogDetailDto,
  RequestLogExportQueryDto,
  RequestLogListDto,
  RequestLogQueryDto,
} from './dto/request-log.dto';
import { RequestLogGuard, RequestLogScope } from './request-log.guard';
import { RequestLogService } from './request-log.service';

const Scope = createParamDecorator((_: unknown, ctx: ExecutionContext): RequestLogScope => {
  const scope = ctx.switchToHttp().getRequest<{ requestLogScope?: RequestLogScope }>().requestLogScope;
  if (!scope) throw ApiError.unauthorized();
  return scope;
});

/** The team's API keys, sessions (viewer and up) and the operator (every team). */
function RequestLogAuth(): ClassDecorator {
  return applyDecorators(
    AllowSession('viewer'),
    UseGuards(RequestLogGuard),
    ApiSecurity(SECURITY.apiKeyHeader),
    ApiSecurity(SECURITY.bearer),
    ApiSecurity(SECURITY.authorizationApiKey),
    ApiSecurity(SECURITY.admin),
    ApiResponse({ status: 401, description: 'Missing, unknown or revoked API key (or no session / admin token).' }),
  );
}

@ApiTags('Request log')
@RequestLogAuth()
@Controller('api/v1/requests')
export class RequestLogController {
  constructor(private readonly requests: RequestLogService) {}

  @Get()
  @ApiOperation({
    summary: "The team's model calls, newest first (cursor pages), with filters; operators: every team or team_id",
  })
  @ApiOkResponse({ type: RequestLogListDto })
  list(@Scope() scope: RequestLogScope, @Query() q: RequestLogQueryDto): Promise<RequestLogListDto> {
    return this.requests.list(scope, q);
  }

  @Get('export')
  @ApiOperation({
    summary: 'The same records as CSV (format=csv, up to `limit` rows; the next file starts at `x-next-cursor`)',
  })
  @ApiProduces('text/csv')
  @ApiOkResponse({ description: 'CSV, one line per call', schema: { type: 'string' } })
  async export(
    @Scope() scope: RequestLogScope,
    @Query() q: RequestLogExportQueryDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<string> {
    const { body, next } = await this.requests.csv(scope, q);
    res.setHeader('content-type', 'text/csv; charset=utf-8');
    res.setHeader('content-disposition', 'attachment; filename="requests.csv"');
    if (next !== null) res.setHeader('x-next-cursor', next);
    return body;
  }

  @Get(':id')
  @ApiOperation({ summary: 'One call of the request log by its x-request-id, with its bodies when stored' })
  @ApiParam({ name: 'id', description: "The call's x-request-id" })
  @ApiOkResponse({ type: RequestLogDetailDto })
  @ApiResponse({ status: 404, description: 'request_not_found (unknown, expired, or another team’s)' })
  get(@Scope() scope: RequestLogScope, @Param('id') id: string): Promise<RequestLogDetailDto> {
    return this.requests.get(scope, id);
  }
}
