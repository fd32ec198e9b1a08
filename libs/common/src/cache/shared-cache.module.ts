import { CacheModule } from '@nestjs/cache-manager';
import { Global, Module } from '@nestjs/common';
import KeyvRedis from '@keyv/redis';
import { Keyv } from 'keyv';
import { AppConfig } from '@app/config';
import { SharedCache } from './shared-cache';

/**
 * @nestjs/cache-manager (cache-manager 7) with a Keyv store: @keyv/redis (the maintained successor
 * of cache-manager-redis-yet) when REDIS_URL is set, Keyv's in-process Map otherwise.
 * Keys are namespaced with REDIS_KEY_PREFIX.
 */
@Global()
@Module({
  imports: [
    CacheModule.registerAsync({
      inject: [AppConfig],
      useFactory: (config: AppConfig) => {
        if (!config.redisUrl) {
          return { stores: [new Keyv({ namespace: config.redisKeyPrefix })] };
        }
        const store = new KeyvRedis(config.redisUrl, { throwOnConnectError: false, throwOnErrors: true, connectionTimeout: 1000 });
        const keyv = new Keyv({ store, namespace: config.redisKeyPrefix, useKeyPrefix: false });
        keyv.on('error', () => undefined); // surfaced through SharedCache's guarded calls instead
        return { stores: [keyv] };
      },
    }),
  ],
  providers: [SharedCache],
  exports: [SharedCache],
})
export class SharedCacheModule {}
