import { CanActivate, Controller, ExecutionContext, Get, Injectable, Res, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { createHash, timingSafeEqual } from 'node:crypto';
import { AppConfig } from '@app/config';
import { ApiError } from '../errors/api-error';
import { MetricsService } from './metrics.service';

/** Swagger security scheme of /metrics (registered by setupApp). */
export const METRICS_SECURITY = 'metrics';

function sameSecret(a: string, b: string): boolean {
  return timingSafeEqual(
    createHash('sha256').update(a, 'utf8').digest(),
    createHash('sha256').update(b, 'utf8').digest(),
  );
}

/** METRICS_TOKEN set → `Authorization: Bearer <METRICS_TOKEN>` required (constant-time compare); unset → open. */
@Injectable()
export class MetricsTokenGuard implements CanActivate {
  constructor(private readonly config: AppConfig) {}

  canActivate(context: ExecutionContext): boolean {
    const token = this.config.metricsToken;
    if (!token) return true;
    const req = context.switchToHttp().getRequest<Request>();
    const m = /^\s*Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
    if (!m || !sameSecret(m[1], token))
      throw ApiError.unauthorized('Invalid or missing metrics token.', 'invalid_metrics_token');
    return true;
  }
}

const EXAMPLE = [
  '# HELP gateway_http_requests_total HTTP requests answered, by method, route template and status code.',
  '# TYPE gateway_http_requests_total counter',
  'gateway_http_requests_total{method="POST",route="/v1/chat/completions",status="200"} 42',
].join('\n');

@ApiTags('Health')
@Controller()
export class MetricsController {
  constructor(private readonly metrics: MetricsService) {}

  @Get('metrics')
  @UseGuards(MetricsTokenGuard)
  @ApiOperation({
    summary: 'Prometheus metrics (text exposition format)',
    description: 'Open when METRICS_TOKEN is unset; otherwise `Authorization: Bearer <METRICS_TOKEN>`.',
  })
  @ApiBearerAuth(METRICS_SECURITY)
  @ApiProduces('text/plain')
  @ApiOkResponse({
    description: 'Every metric of this replica.',
    content: { 'text/plain': { schema: { type: 'string', example: EXAMPLE } } },
  })
  @ApiResponse({ status: 401, description: 'METRICS_TOKEN is set and the bearer token is missing or wrong.' })
  async scrape(@Res() res: Response): Promise<void> {
    const { contentType, body } = await this.metrics.exposition();
    res.status(200).setHeader('cache-control', 'no-store');
    res.setHeader('content-type', contentType);
    res.send(body);
  }
}
