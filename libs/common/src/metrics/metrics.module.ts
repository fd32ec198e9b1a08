import { Global, Module } from '@nestjs/common';
import { MetricsController, MetricsTokenGuard } from './metrics.controller';
import { BackgroundCalls } from './background-calls';
import { MetricsService } from './metrics.service';
import { RequestContexts } from './request-context';
import { RequestObserver } from './request-observer';

/** Metrics and per-request contexts; global, so every lib can inject MetricsService and RequestContexts. */
@Global()
@Module({
  controllers: [MetricsController],
  providers: [MetricsService, RequestContexts, RequestObserver, MetricsTokenGuard, BackgroundCalls],
  exports: [MetricsService, RequestContexts, RequestObserver, BackgroundCalls],
})
export class MetricsModule {}
