import { Module } from '@nestjs/common';
import { AppConfig } from '@app/config';
import { MemoryRateLimiter, RateLimiter, RedisRateLimiter } from './rate-limiter';
import { RateLimitEvents } from './rate-limit-events';
import { RateLimitService } from './rate-limit.service';
import { RateLimitGuard } from './rate-limit.guard';

/** Rate limits (Redis when REDIS_URL is set, in-process otherwise) and their rejection events. */
@Module({
  providers: [
    {
      provide: RateLimiter,
      inject: [AppConfig],
      useFactory: (config: AppConfig) => (config.redisUrl ? new RedisRateLimiter(config) : new MemoryRateLimiter()),
    },
    RateLimitEvents,
    RateLimitService,
    RateLimitGuard,
  ],
  exports: [RateLimitService, RateLimitEvents, RateLimitGuard],
})
export class GovernanceModule {}
