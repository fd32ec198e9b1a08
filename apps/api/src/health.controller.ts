import { Controller, Get, HttpCode, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { SharedCache } from '@app/common';
import { DatabaseHealth } from '@app/database';
import { HealthDto, ReadinessDto } from './health.dto';

@ApiTags('Health')
@Controller()
export class HealthController {
  constructor(
    private readonly db: DatabaseHealth,
    private readonly cache: SharedCache,
  ) {}

  @Get('health')
  @HttpCode(200)
  @ApiOperation({ summary: 'Liveness: the process answers' })
  @ApiOkResponse({ type: HealthDto })
  health(): HealthDto {
    return { status: 'ok' };
  }

  @Get('ready')
  @ApiOperation({ summary: 'Readiness: database reachable, and Redis when configured' })
  @ApiOkResponse({ type: ReadinessDto })
  @ApiServiceUnavailableResponse({ type: ReadinessDto, description: 'A dependency is down' })
  async ready(@Res({ passthrough: true }) res: Response): Promise<ReadinessDto> {
    const [database, cache] = await Promise.all([this.db.ping(), this.cache.ping()]);
    const ok = database && cache;
    res.status(ok ? 200 : 503);
    return {
      status: ok ? 'ready' : 'unavailable',
      checks: { database: { kind: this.db.kind, ok: database }, cache: { kind: this.cache.backend, ok: cache } },
    };
  }
}
